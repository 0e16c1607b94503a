// The page's files: index.html from here, app.js and app.css from the bundle `npm run build`
// writes to dist/ui-page/. Run from the sources (tsx), the bundle is built in memory from
// src/ui/page at first use, so an edit shows on reload and a fresh clone needs no build step.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { MetalfleetError, errorMessage } from '../api/index.ts';

export interface PageAssets {
  readonly 'app.js': Uint8Array;
  readonly 'app.css': Uint8Array;
}

export class UiAssetsMissing extends MetalfleetError {
  constructor(message: string, options?: ErrorOptions) {
    super('uiAssetsMissing', message, false, undefined, options);
    this.name = 'UiAssetsMissing';
  }
}

const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** dist/ui-page seen from src/ui (sources) or dist/ui (the built package). */
function bundleDir(): string {
  return fileURLToPath(new URL(FROM_SOURCE ? '../../dist/ui-page/' : '../ui-page/', import.meta.url));
}

let cached: Promise<PageAssets> | null = null;

export function loadAssets(): Promise<PageAssets> {
  cached ??= (FROM_SOURCE ? buildFromSource() : readBundle()).catch((err: unknown) => {
    cached = null;
    throw err;
  });
  return cached;
}

async function readBundle(): Promise<PageAssets> {
  const dir = bundleDir();
  try {
    const [js, css] = await Promise.all([readFile(`${dir}app.js`), readFile(`${dir}app.css`)]);
    return { 'app.js': js, 'app.css': css };
  } catch (err) {
    throw new UiAssetsMissing(`the dashboard's bundle is missing from ${dir}: run \`npm run build\``, { cause: err });
  }
}

async function buildFromSource(): Promise<PageAssets> {
  try {
    const { bundlePage } = await import('./bundle.ts');
    return await bundlePage();
  } catch (err) {
    // No esbuild (a production install run from sources): the built bundle, if there is one.
    return readBundle().catch(() => {
      throw new UiAssetsMissing(`cannot build the dashboard from src/ui/page: ${errorMessage(err)}`, { cause: err });
    });
  }
}
