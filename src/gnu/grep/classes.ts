/** grep: character classes of glibc's C.UTF-8 locale, as `v`-mode class contents. */

/** [[:alpha:]] of glibc 2.36 C.UTF-8 (ranges as base-36 gap.length pairs, measured). */
const ALPHA_TABLE =
  '1t.p,7.p,1c.0,b.0,5.0,6.m,2.u,2.cp,5.b,f.4,8.0,2.0,2f.0,17.4,2.1,3.3,2.0,7.0,2.2,2.0,2.j,2.2a,2.3u,9.4l,2.11,3' +
  '.0,7.14,14.d,2.0,2.1,2.1,2.0,9.q,5.3,u.a,6.1j,2.g,5.2t,2.7,5.7,5.f,3.0,h.1b,e.2s,f.16,a.1,5.0,6.n,3.i,k.o,8.a,' +
  '6.n,2.5,i.15,b.b,4.6,7.23,2.f,2.2,5.e,3.9,2.i,2.7,3.1,3.l,2.6,2.0,4.3,4.7,3.1,3.1,2.0,9.0,5.1,2.4,3.b,b.0,5.2,' +
  '2.5,5.1,3.l,2.6,2.1,2.1,2.1,5.4,5.1,3.1,5.0,8.3,2.0,8.f,c.2,2.8,2.2,2.l,2.6,2.1,2.4,4.8,2.2,2.1,4.0,g.3,3.9,a.' +
  '3,5.2,2.7,3.1,3.l,2.6,2.1,2.4,4.7,3.1,3.1,a.1,5.1,2.4,3.9,2.0,h.1,2.5,4.2,2.3,4.1,2.0,2.1,4.1,4.2,4.b,5.4,4.2,' +
  '2.2,4.0,7.0,f.9,h.3,2.7,2.2,2.m,2.f,4.7,2.2,2.2,9.1,2.2,3.0,3.3,3.9,h.3,2.7,2.2,2.m,2.9,2.4,4.7,2.2,2.2,9.1,7.' +
  '1,2.3,3.9,2.1,e.c,2.2,2.14,3.7,2.2,2.2,2.0,6.3,8.4,3.9,b.5,2.2,2.h,4.n,2.8,2.0,3.6,9.5,2.0,2.7,7.9,3.1,e.1l,6.' +
  '6,7.0,3.9,14.1,2.0,2.4,2.n,2.0,2.i,2.2,3.4,2.0,7.0,3.9,3.3,x.0,w.9,n.7,2.z,5.g,7.f,2.z,1w.1i,2.0,3.e,7.25,3.11' +
  ',2.0,6.0,3.16,2.98,2.3,3.6,2.0,2.3,3.14,2.3,3.w,2.3,3.6,2.0,2.3,3.e,2.1k,2.3,3.1u,12.f,h.2d,3.5,4.h7,3.g,2.p,6' +
  '.22,4.a,8.j,c.k,d.j,d.c,2.2,2.1,d.1f,3.i,f.0,5.0,4.9,13.9,7.2g,8.16,6.1x,b.u,2.b,5.8,e.13,3.4,c.17,5.p,7.9,13.' +
  'r,5.1q,3.j,c.9,7.9,e.0,o.1,c.2,1e.1f,2.e,2.7,4.9,13.15,3.1l,2.a,f.1i,a.9,4.1c,3.8,8.16,3.2,16.3,2.5,2.1,4.0,6.' +
  '5b,14.d,c.7p,3.5,3.11,3.5,3.7,2.0,2.0,2.0,2.u,3.1g,2.6,2.0,4.2,2.6,4.3,3.5,5.c,6.2,2.6,39.0,e.0,h.c,2u.0,5.0,3' +
  '.9,2.0,4.4,7.0,2.0,2.0,2.3,2.a,3.3,6.4,5.0,i.14,mm.1f,1ef.6c,7.3,4.1,d.11,2.0,6.0,3.1j,8.0,h.m,a.6,2.6,2.6,2.6' +
  ',2.6,2.6,2.6,2.6,2.v,1c.0,d2.2,q.8,8.4,3.4,5.2d,7.2,2.2h,2.3,6.16,2.2l,i.v,1d.f,e9.533,1t.h3g,1w.19,3.7g,4.r,l' +
  '.1a,6.7,4.34,14.8,3.2u,3.1r,6.1,2.0,2.4,p.j,2.w,p.1f,d.1v,2.0,b.9,p.5,4.0,2.19,6.y,e.s,4.1e,2.b,g.a,7.u,2.1i,a' +
  '.d,3.9,7.m,4.1w,2.0,2.0,p.2,3.f,3.3,c.5,3.5,3.5,a.6,2.6,2.16,2.d,7.3e,6.9,7.8mb,d.m,5.1c,6it.a5,3.2x,13.6,d.4,' +
  '6.b,2.c,2.4,2.0,2.1,2.1,2.2z,y.a2,j.1r,3.1h,15.b,39.4,2.3q,k.9,8.p,7.p,c.2g,4.5,3.5,3.5,3.2,10.b,2.p,2.i,2.1,2' +
  '.e,3.d,z.3e,1y.1g,7g.s,4.1c,1c.v,e.t,6.16,6.t,3.z,5.7,2.4,17.4d,3.9,7.z,5.z,5.13,9.1f,d.a,2.e,2.6,2.1,2.a,2.e,' +
  '2.6,2.1,1w.8m,a.l,b.7,p.5,2.15,2.8,1y.5,3.0,2.17,2.1,4.0,3.m,b.m,a.u,1u.i,2.1,b.l,b.p,1z.1j,7.1,1t.3,2.1,6.7,2' +
  '.2,2.s,17.s,4.s,10.7,2.r,s.1h,b.l,b.i,e.h,33.20,1k.1e,e.1e,e.13,9.9,93.15,2.1,4.1,27.s,b.0,9.l,17.h,1b.k,s.m,a' +
  '.1x,x.9,2.4,d.1i,a.0,e.o,8.9,7.1e,4.9,5.3,9.y,4.0,a.1r,2.3,a.c,2.0,10.h,2.x,3.0,7.0,1u.6,2.0,2.3,2.e,2.9,8.1k,' +
  '8.9,7.3,2.7,3.1,3.l,2.6,2.1,2.4,4.7,3.1,3.1,4.0,7.0,6.6,4d.1t,2.2,2.3,6.9,6.2,v.1t,3.1,2.0,9.9,4n.1h,3.6,q.5,z' +
  '.1q,2.0,4.0,c.9,13.1h,3.0,8.9,1j.q,3.d,6.9,7.6,56.1k,2w.21,m.7,3.0,3.7,2.1,2.t,2.1,3.1,3.3,e.9,1z.7,3.19,3.5,2' +
  '.0,2.1,s.1e,3.9,i.1z,6.0,j.20,7c.8,2.18,2.6,2.0,g.9,p.t,3.l,2.d,22.6,2.1,2.17,4.0,2.1,2.2,2.0,3.1,9.9,7.5,2.1,' +
  '2.10,2.1,2.3,2.0,8.9,8n.m,56.0,28.pl,2v.32,i.5f,219.2o,g.tq,34i.g6,6nu.fs,8.u,2.9,7.26,2.9,7.t,j.1b,h.3,d.9,a.' +
  'k,6.i,j5.1r,3l.22,5.1k,8.g,1t.1,2.0,d.1,f.4qf,9.yd,17.8,6w8.3,2.6,2.1,2.82,1a.2,i.3,9.az,1s5.2y,6.c,4.8,8.9,5.' +
  '0,4ma.2c,2.1y,2.1,3.0,3.1,3.3,2.b,2.0,2.6,2.1s,2.3,3.7,2.6,2.r,2.3,2.4,2.0,4.6,2.9f,3.o,2.o,2.u,2.o,2.u,2.o,2.' +
  'u,2.o,2.u,2.o,2.7,3.1d,1dt.u,6a.6,2.g,3.6,2.1,2.4,5y.18,b.6,3.9,5.0,8y.t,j.17,5.9,yv.6,2.3,2.1,2.e,2.5g,1o.1v,' +
  '4.0,4.0,5.9,x3.3,2.q,2.1,2.0,3.0,2.9,2.3,2.0,2.0,7.0,5.0,2.0,2.0,2.2,2.1,2.0,3.0,2.0,2.0,2.0,2.0,2.1,2.0,3.3,2' +
  '.6,2.3,2.3,2.0,2.9,2.g,6.2,2.4,2.g,hh.p,7.p,7.p,21z.9,sn.wyn,x.37c,8.65,3.4g1,f.5rk,2e8.f1,15v.3t6';

export let alphaRanges: string | null = null;
export function hex(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}
/** Escapes one code point for use anywhere in a `v`-mode pattern (inside or outside classes). */
export function esc(ch: string): string {
  const c = ch.codePointAt(0)!;
  if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) return ch;
  return hex(c);
}
export function alpha(): string {
  if (alphaRanges === null) {
    let prev = 0;
    const parts: string[] = [];
    for (const pair of ALPHA_TABLE.split(',')) {
      const dot = pair.indexOf('.');
      const a = prev + parseInt(pair.slice(0, dot), 36);
      const b = a + parseInt(pair.slice(dot + 1), 36);
      parts.push(a === b ? hex(a) : `${hex(a)}-${hex(b)}`);
      prev = b;
    }
    alphaRanges = parts.join('');
  }
  return alphaRanges;
}
export const SPACE_SET = '\\t-\\r \\u{1680}\\u{2000}-\\u{2006}\\u{2008}-\\u{200a}\\u{2028}\\u{2029}\\u{205f}\\u{3000}';
/** Invalid UTF-8 bytes are decoded to lone U+DC80..U+DCFF; like GNU, no class matches them. */
export const BADBYTES = '\\u{dc80}-\\u{dcff}';

/** The class (a complete `[...]`) for a POSIX class name, or null if the name is invalid. */
export function posixClass(name: string, icase: boolean): string | null {
  const graph = `[[^\\p{Cc}\\p{Cn}\\p{Cs}${BADBYTES}]--[${SPACE_SET}]]`;
  switch (icase && (name === 'upper' || name === 'lower') ? 'alpha' : name) {
    case 'alpha':
      return `[${alpha()}]`;
    case 'alnum':
      return `[${alpha()}0-9]`;
    case 'digit':
      return '[0-9]';
    case 'xdigit':
      return '[0-9A-Fa-f]';
    case 'upper':
      return '[\\p{Uppercase}\\p{Lt}]';
    case 'lower':
      return '[\\p{Lowercase}\\u{1c5}\\u{1c8}\\u{1cb}\\u{1f2}\\u{295}]';
    case 'space':
      return `[${SPACE_SET}]`;
    case 'blank':
      return '[\\t \\u{1680}\\u{2000}-\\u{2006}\\u{2008}-\\u{200a}\\u{205f}\\u{3000}]';
    case 'cntrl':
      return '[\\p{Cc}\\u{2028}\\u{2029}]';
    case 'graph':
      return graph;
    case 'print':
      return `[[^\\p{Cc}\\p{Cn}\\p{Cs}${BADBYTES}]--[\\t-\\r\\u{2028}\\u{2029}]]`;
    case 'punct':
      return `[${graph}--[${alpha()}0-9]]`;
    default:
      return null;
  }
}
export function wordClass(): string {
  return `[${alpha()}0-9_]`;
}
