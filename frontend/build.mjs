// Bundles frontend/main.js and what it imports (CodeMirror 6) into app/static/dist/app.js,
// and copies Swagger UI (the interactive API docs at /docs) into app/static/dist/swagger/,
// so that /docs needs nothing from the internet.
// `make frontend` runs it after `npm ci`; `node frontend/build.mjs --watch` rebuilds on save.
import * as esbuild from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const SWAGGER_FILES = [
  "swagger-ui-bundle.js",
  "swagger-ui.css",
  "favicon-32x32.png",
  "LICENSE",
  "NOTICE",
];

function copySwaggerUi() {
  const source = path.dirname(
    createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"),
  );
  const target = path.join(root, "app", "static", "dist", "swagger");
  mkdirSync(target, { recursive: true });
  for (const name of SWAGGER_FILES) {
    copyFileSync(path.join(source, name), path.join(target, name));
  }
}
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
copySwaggerUi();
