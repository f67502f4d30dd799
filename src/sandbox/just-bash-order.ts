/**
 * Fix 6 of the just-bash patch (just-bash-patch.ts): `2>&1` keeps the order in which stdout and
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
// The accumulators: `new Vt(this.ctx.executionScope,"statement")` and `var on=class{ctx;stdoutChunks=[];…`.
const ACCUMULATOR = new RegExp(`new (${ID})\\(this\\.ctx\\.executionScope,"statement"\\)`);
const LOOP_ACCUMULATOR = new RegExp(`var (${ID})=class\\{ctx;stdoutChunks=\\[\\];stderrChunks=\\[\\];totalBytes=0;`);
// The loop accumulator's callers hand it strings: `n.append(i.stdout,i.stderr)` gets the result too.
const LOOP_APPEND = new RegExp(`\\.append\\((${ID})\\.stdout,\\1\\.stderr\\)`, 'g');
// In the redirection step (`async function rn(e,t,…`), both streams into one file: `let A=S+v;A!==""&&(h.kind==="file"?await k(h,A,p(A))`.
const REDIRECT = new RegExp(`async function (${ID})\\((${ID}),(${ID}),`);
const SAME_FILE = new RegExp(`let (${ID})=(${ID})\\+(${ID});\\1!==""&&\\((${ID})\\.kind==="file"\\?await (${ID})\\(\\4,\\1,(${ID})\\(\\1\\)\\)`);
// …and both to the live stdout or stderr: `else for(let[A,C,N]of[[S,h,!0],[v,m,!1]])if(A!=="")switch(C.kind){case"live-stdout":l+=A;break;case"live-stderr":c+=A;break;`.
const LIVE = new RegExp(
  `else for\\(let\\[(${ID}),(${ID}),(${ID})\\]of\\[\\[(${ID}),(${ID}),!0\\],\\[(${ID}),(${ID}),!1\\]\\]\\)if\\(\\1!==""\\)switch\\(\\2\\.kind\\)\\{case"live-stdout":(${ID})\\+=\\1;break;case"live-stderr":(${ID})\\+=\\1;break;`,
);
// The redirection step's result: `let g=L(l,c,u);if(t.stdoutKind&&(g.stdoutKind=t.stdoutKind)`.
// A pipe that takes both streams (`|&`): `t.pipeStderr?.[g]??!1?s=Tt(N.stderr)+xt(N):` (stderr first, always).
const PIPE_BOTH = new RegExp(`pipeStderr\\?\\.\\[${ID}\\]\\?\\?!1\\?(${ID})=(${ID})\\((${ID})\\.stderr\\)\\+(${ID})\\(\\3\\)`);
const RESULT = new RegExp(`let (${ID})=(${ID})\\((${ID}),(${ID}),(${ID})\\);if\\((${ID})\\.stdoutKind&&\\(\\1\\.stdoutKind=\\6\\.stdoutKind\\)`);

/** The bundle with fix 6, or null when its text is not as expected. */
export function patchOutputOrder(source: string): string | null {
  const acc = ACCUMULATOR.exec(source)?.[1];
  const loop = LOOP_ACCUMULATOR.exec(source)?.[1];
  if (!acc || !loop || (source.match(LOOP_APPEND) ?? []).length < 9) return null;
  // The redirection step is the function that accounts a result to "redirection" first thing.
  const anchor = source.search(/\.executionScope\.accountResult\([\w$]+,"redirection"\)\);let\{stdout:/);
  const start = anchor < 0 ? -1 : source.lastIndexOf('async function ', anchor);
  const redirect = start < 0 ? null : REDIRECT.exec(source.slice(start));
  if (!redirect || redirect.index !== 0) return null;
  const result = redirect[3]!; // the redirection step's ExecResult parameter (its second)
  const body = source.slice(start);
  const file = SAME_FILE.exec(body);
  const live = LIVE.exec(body);
  const built = RESULT.exec(body);
  if (!file || !live || !built) return null;
  const [, , , , out, outDest, err, errDest, l, c] = live as unknown as string[];
  const [, , , , , write, kind] = file as unknown as string[];
  let patched = body
    .replace(SAME_FILE, (m, a: string, s: string, e: string) => m.replace(`let ${a}=${s}+${e};`, () => `let ${a}=__afsMerge(${result},${s},${e});`))
    .replace(
      LIVE,
      (m) =>
        `else if(${out}!==""&&${err}!==""&&${outDest}.kind===${errDest}.kind&&(${outDest}.kind==="live-stdout"||${outDest}.kind==="live-stderr"))` +
        `${outDest}.kind==="live-stdout"?${l}+=__afsMerge(${result},${out},${err}):${c}+=__afsMerge(${result},${out},${err});` +
        // `> f 2>&1`: stdout is the file, stderr the descriptor open on it.
        `else if(${out}!==""&&${err}!==""&&${outDest}.kind==="file"&&${errDest}.kind==="descriptor"&&${errDest}.source?.entry?.kind==="output"&&${errDest}.source.entry.path===${outDest}.path){` +
        `let __m=__afsMerge(${result},${out},${err});await ${write}(${outDest},__m,${kind}(__m))}` +
        m,
    )
    .replace(
      RESULT,
      (m, g: string, _L: string, lo: string, co: string) =>
        `${m.slice(0, m.indexOf(';') + 1)}${lo}&&${co}&&${lo}===${result}.stdout&&${co}===${result}.stderr&&${result}[__afsK]&&(${g}[__afsK]=${result}[__afsK]);` +
        m.slice(m.indexOf(';') + 1),
    );
  patched = source.slice(0, start) + patched;
  const pipe = PIPE_BOTH.exec(patched);
  if (!pipe) return null;
  const [whole, next, enc, res, bytes] = pipe as unknown as string[];
  const ordered = whole!.replace(`${next}=${enc}(${res}.stderr)+${bytes}(${res})`, () => `${next}=__afsPipe(${res},${enc},${bytes})`);
  patched = patched.replace(whole!, () => ordered);
  patched = patched.replace(LOOP_APPEND, (_m, r: string) => `.append(${r}.stdout,${r}.stderr,${r})`);
  return patched + RUNTIME.replace('__ACC__', () => acc).replace('__LOOP__', () => loop);
}
