// Bundles frontend/main.js and what it imports (CodeMirror 6) into app/static/dist/app.js.
// `make frontend` runs it after `npm ci`; `node frontend/build.mjs --watch` rebuilds on save.
import * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const options = {
  entryPoints: [path.join(root, "frontend", "main.js")],
  outfile: path.join(root, "app", "static", "dist", "app.js"),
  bundle: true,
  format: "iife",
  target: ["es2020"],
  minify: true,
  sourcemap: true,
  legalComments: "linked",
  logLevel: "warning",
};

if (process.argv.includes("--watch")) {
  const context = await esbuild.context(options);
  await context.watch();
  console.log("watching frontend/ ...");
} else {
  await esbuild.build(options);
}
