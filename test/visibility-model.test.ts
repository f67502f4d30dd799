/**
 * The model-based visibility test (see test/helpers/visibility-suite.ts): random small worlds of
 * files, shares, publications, links, posts with attachments, blocks and restricted keys, each read
 * through every path (file tools, bash, search, the public API, links, feed and posts) by a
 * recipient, a stranger and an anonymous reader, and compared with a plain model of the rules.
 * npm test plays VIS_WORLDS worlds per backend (default below); test/slow plays many more.
 */
import { seedsOf, visibilitySuite } from './helpers/visibility-suite.js';

const WORLDS = Number(process.env.VIS_WORLDS ?? 100);

visibilitySuite('visibility model', seedsOf(1, WORLDS));
