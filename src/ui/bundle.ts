// Bundles the page (src/ui/page, preact and uPlot) with esbuild: in memory for a run from the
// sources, into dist/ui-page/ for `npm run build` (writeBundle).
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export async function bundlePage(): Promise<{ 'app.js': Uint8Array; 'app.css': Uint8Array }> {
  // esbuild is a devDependency: loaded only here, never by an installed package.
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [fileURLToPath(new URL('./page/main.tsx', import.meta.url))],
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    outdir: 'out',
    entryNames: 'app',
    logLevel: 'silent',
    jsx: 'automatic',
    jsxImportSource: 'preact',
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'));
  const css = result.outputFiles.find((f) => f.path.endsWith('.css'));
  if (!js || !css) throw new Error(`esbuild produced ${result.outputFiles.map((f) => f.path).join(', ')}, not app.js and app.css`);
  return { 'app.js': js.contents, 'app.css': css.contents };
}

/** `npm run build`: the bundle into `dir` (dist/ui-page), where the built package reads it. */
export async function writeBundle(dir: string): Promise<void> {
  const files = await bundlePage();
  await mkdir(dir, { recursive: true });
  await Promise.all(Object.entries(files).map(([name, data]) => writeFile(`${dir}/${name}`, data)));
}
