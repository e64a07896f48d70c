// Trunk's post_build hook (Trunk.toml): beside each wasm, JS and CSS file of
// a release build, its gzip (-9) and brotli (quality 11) copies, which
// Imprint sends to browsers that accept them (server/src/http/site.rs). The
// wasm goes from ~890 KB to ~260 KB gzip and ~210 KB brotli.
//
// gzip is zopfli's when the `zopfli` command is installed (Debian's
// `zopfli`: a slower search for the same deflate format, which any gzip
// reader reads; 4% smaller on the wasm than `gzip -9`, about 10 s for it),
// else the `gzip` command's (1 KB smaller on the wasm than Node's zlib at
// level 9); brotli is Node's zlib (the build already needs Node: binaryen's
// wasm-opt and Playwright come from npm), so no other tool. Debug builds are
// left as they are (fast rebuilds; Imprint then serves them uncompressed).
// These names carry a content hash, so a copy can never be of another
// version; index.html (1.6 KB, read by the server for its CSP) is not
// compressed.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) {
  console.error('compress-site: run by `trunk build` as its post_build hook (TRUNK_STAGING_DIR is unset)');
  process.exit(1);
}
if (process.env.TRUNK_PROFILE !== 'release') process.exit(0);

/** `file` gzipped: by zopfli when it is installed, else by `gzip -9`. */
function gzipped(file) {
  const options = { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'inherit'] };
  try {
    return execFileSync('zopfli', ['-c', file], options);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
    return execFileSync('gzip', ['-9', '-n', '-c', file], options);
  }
}

for (const name of fs.readdirSync(staging)) {
  if (!/\.(wasm|js|css)$/.test(name)) continue;
  const file = path.join(staging, name);
  const bytes = fs.readFileSync(file);
  fs.writeFileSync(`${file}.gz`, gzipped(file));
  fs.writeFileSync(
    `${file}.br`,
    zlib.brotliCompressSync(bytes, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
  );
}
