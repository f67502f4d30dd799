/**
 * The stream-order patches of just-bash's bundle (patches.ts): `2>&1` keeps the order in which stdout and
 * stderr were written. just-bash collects a command's two streams as separate strings, and a
 * redirection that sends both to one place wrote all of stdout, then all of stderr: `cat missing
 * a.txt 2>&1` printed a.txt's content before the error, GNU the error first.
 *
 * The order travels with a result as a list of chunks, `[fd, text]` in writing order, under the
 * symbol OUTPUT_ORDER (src/gnu/kit/order.ts): the GNU commands here set it when they write both
 * streams; the interpreter's accumulators (statement lists, groups, subshells, loops, if/case)
 * keep it while they collect their statements' results; the redirection step uses it where both
 * streams end in the same place, and a pipe that takes both (`|&`) feeds them on in that order
 * (just-bash put all of stderr first). A chunk list is used only after checking that its chunks are
 * still exactly the result's stdout and stderr (every result just-bash rebuilds from strings
 * fails the check), so a stale or missing order falls back to just-bash's stdout-then-stderr and
 * never changes a byte of output. An accumulator that has seen one stream only keeps just its
 * pieces; the list starts when the second stream appears, and a result with one stream has none. (A byte
 * output the interpreter decodes to text on the way, as UTF-8, is decoded chunk by chunk the same
 * way; a chunk that splits a character fails the check.)
 */

import type { Patch } from './patches.js';

/** The runtime half, appended to the bundle: the order's helpers and the accumulators' patches. */
const RUNTIME = `
var __afsK=Symbol.for("afs.order");
function __afsSeq(r){let o=r&&r[__afsK];if(!Array.isArray(o))return null;let a="",b="";for(let c of o)c[0]===1?a+=c[1]:b+=c[1];return a===r.stdout&&b===r.stderr?o:null}
function __afsMerge(r,s,e){let o=s!==""&&e!==""&&s===r.stdout&&e===r.stderr?__afsSeq(r):null;if(!o)return s+e;let x="";for(let c of o)x+=c[1];return x}
function __afsAdd(a,f,s){if(!s)return;if(a.__afsO){a.__afsO.push([f,s]);return}if(a.__afsF===void 0||a.__afsF===f){a.__afsF=f;(a.__afsP??=[]).push(s);return}a.__afsO=[[a.__afsF,a.__afsP.join("")],[f,s]];a.__afsP=void 0}
function __afsText(o,s){let d=new TextDecoder("utf-8",{fatal:!0}),x=[],j="";for(let c of o){let t=c[1];if(c[0]===1&&/[\x80-\xff]/.test(t)&&!/[^\x00-\xff]/.test(t))try{t=d.decode(Uint8Array.from(t,h=>h.charCodeAt(0)))}catch{return null}c[0]===1&&(j+=t);x.push([c[0],t])}return j===s?x:null}
function __afsRec(a,r,s,e){let o=r&&e===r.stderr?__afsSeq(r):null;o&&s!==r.stdout&&(o=__afsText(o,s));if(o){for(let c of o)__afsAdd(a,c[0],c[1]);return}__afsAdd(a,1,s);__afsAdd(a,2,e)}
function __afsPipe(r,enc,out){let o=__afsSeq(r);if(!o)return enc(r.stderr)+out(r);let x="";for(let c of o)x+=c[0]===1?out({stdout:c[1],stdoutKind:r.stdoutKind,stdoutEncoding:r.stdoutEncoding}):enc(c[1]);return x}
function __afsBuilt(a,r){a.__afsO&&r&&typeof r==="object"&&(r[__afsK]=a.__afsO);return r}
{let P=__ACC__.prototype,A=P.append,R=P.appendResult,B=P.build;
P.append=function(t,s,...x){this.__afsIn||__afsAdd(this,t==="stdout"?1:2,s);return A.call(this,t,s,...x)};
P.appendResult=function(t,s=t.stdout){__afsRec(this,t,s,t.stderr);this.__afsIn=!0;try{return R.call(this,t,s)}finally{this.__afsIn=!1}};
P.build=function(...x){return __afsBuilt(this,B.apply(this,x))}}
{let P=__LOOP__.prototype,A=P.append,R=P.replace,B=P.build;
P.append=function(t,n,r){__afsRec(this,r,t,n);return A.call(this,t,n)};
P.replace=function(t,n){this.__afsO=this.__afsF=this.__afsP=void 0;return R.call(this,t,n)};
P.build=function(...x){return __afsBuilt(this,B.apply(this,x))}}
`;

const ID = '[\\w$]+';
// The redirection step, `async function rn(e,t,n,r,…){n.length>0&&(t=e.executionScope.accountResult(t,"redirection"))`:
// its ExecResult parameter (the second) is the result whose order the patches below read.
const REDIRECT_RESULT = {
  find: new RegExp(
    `async function ${ID}\\((${ID}),(${ID}),(${ID}),[^)]*\\)\\{\\3\\.length>0&&\\(\\2=\\1\\.executionScope\\.accountResult\\(\\2,"redirection"\\)\\)`,
  ),
  group: 2,
};
// In the redirection step, both streams into one file: `let A=S+v;A!==""&&(h.kind==="file"?await k(h,A,p(A))`.
const SAME_FILE = new RegExp(`let (${ID})=(${ID})\\+(${ID});\\1!==""&&\\((${ID})\\.kind==="file"\\?await (${ID})\\(\\4,\\1,(${ID})\\(\\1\\)\\)`);
const WHY =
  'stdout and stderr sent to one place keep the order they were written in; just-bash wrote all of stdout, then all of stderr (docs/upstream/stream-order-2-1.md)';

export const ORDER_PATCHES: Patch[] = [
  {
    name: 'stream-order-same-file',
    why: WHY,
    names: { result: REDIRECT_RESULT },
    find: SAME_FILE,
    replace: ([m, a, s, e], { result }) => m!.replace(`let ${a}=${s}+${e};`, () => `let ${a}=__afsMerge(${result},${s},${e});`),
  },
  {
    name: 'stream-order-live',
    why: WHY,
    // The file writer and the encoding of a text, from the same-file branch: `await k(h,A,p(A))`.
    names: { result: REDIRECT_RESULT, write: { find: SAME_FILE, group: 5 }, kind: { find: SAME_FILE, group: 6 } },
    // …and both to the live stdout or stderr: `else for(let[A,C,N]of[[S,h,!0],[v,m,!1]])if(A!=="")switch(C.kind){case"live-stdout":l+=A;break;case"live-stderr":c+=A;break;`.
    find: new RegExp(
      `else for\\(let\\[(${ID}),(${ID}),(${ID})\\]of\\[\\[(${ID}),(${ID}),!0\\],\\[(${ID}),(${ID}),!1\\]\\]\\)if\\(\\1!==""\\)switch\\(\\2\\.kind\\)\\{case"live-stdout":(${ID})\\+=\\1;break;case"live-stderr":(${ID})\\+=\\1;break;`,
    ),
    replace: ([m, , , , out, outDest, err, errDest, l, c], { result, write, kind }) =>
      `else if(${out}!==""&&${err}!==""&&${outDest}.kind===${errDest}.kind&&(${outDest}.kind==="live-stdout"||${outDest}.kind==="live-stderr"))` +
      `${outDest}.kind==="live-stdout"?${l}+=__afsMerge(${result},${out},${err}):${c}+=__afsMerge(${result},${out},${err});` +
      // `> f 2>&1`: stdout is the file, stderr the descriptor open on it.
      `else if(${out}!==""&&${err}!==""&&${outDest}.kind==="file"&&${errDest}.kind==="descriptor"&&${errDest}.source?.entry?.kind==="output"&&${errDest}.source.entry.path===${outDest}.path){` +
      `let __m=__afsMerge(${result},${out},${err});await ${write}(${outDest},__m,${kind}(__m))}` +
      m,
  },
  {
    name: 'stream-order-result',
    why: WHY,
    names: { result: REDIRECT_RESULT },
    // The redirection step's result: `let g=L(l,c,u);if(t.stdoutKind&&(g.stdoutKind=t.stdoutKind)`.
    find: new RegExp(`let (${ID})=(${ID})\\((${ID}),(${ID}),(${ID})\\);if\\((${ID})\\.stdoutKind&&\\(\\1\\.stdoutKind=\\6\\.stdoutKind\\)`),
    replace: ([m, g, , lo, co], { result }) =>
      `${m!.slice(0, m!.indexOf(';') + 1)}${lo}&&${co}&&${lo}===${result}.stdout&&${co}===${result}.stderr&&${result}[__afsK]&&(${g}[__afsK]=${result}[__afsK]);` +
      m!.slice(m!.indexOf(';') + 1),
  },
  {
    name: 'stream-order-pipe',
    why: WHY,
    // A pipe that takes both streams (`|&`): `t.pipeStderr?.[g]??!1?s=Tt(N.stderr)+xt(N)` (stderr first, always).
    find: new RegExp(`pipeStderr\\?\\.\\[${ID}\\]\\?\\?!1\\?(${ID})=(${ID})\\((${ID})\\.stderr\\)\\+(${ID})\\(\\3\\)`),
    replace: ([m, next, enc, res, bytes]) =>
      m!.replace(`${next}=${enc}(${res}.stderr)+${bytes}(${res})`, () => `${next}=__afsPipe(${res},${enc},${bytes})`),
  },
  {
    name: 'stream-order-loop-results',
    why: WHY,
    // The loop accumulator's callers hand it strings: `n.append(i.stdout,i.stderr)` gets the result too.
    find: new RegExp(`\\.append\\((${ID})\\.stdout,\\1\\.stderr\\)`),
    count: 10,
    replace: ([, r]) => `.append(${r}.stdout,${r}.stderr,${r})`,
  },
  {
    name: 'stream-order-runtime',
    why: WHY,
    names: {
      // The accumulators: `new Vt(this.ctx.executionScope,"statement")` and `var on=class{ctx;stdoutChunks=[];…`.
      statements: { find: new RegExp(`new (${ID})\\(this\\.ctx\\.executionScope,"statement"\\)`), group: 1 },
      loops: { find: new RegExp(`var (${ID})=class\\{ctx;stdoutChunks=\\[\\];stderrChunks=\\[\\];totalBytes=0;`), group: 1 },
    },
    // The bundle's closing export list: the runtime goes after it, where every class it wraps exists.
    find: /export\{[^}]*\};?\s*$/,
    replace: ([m], { statements, loops }) => m + RUNTIME.replace('__ACC__', () => statements!).replace('__LOOP__', () => loops!),
  },
];
