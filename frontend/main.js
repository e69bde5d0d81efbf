// The browser side of Tensorcamp, bundled by frontend/build.mjs into app/static/dist/app.js.
// Progressive enhancement: every page works without it.
import { setUpAnswers } from "./answers.js";
import { setUpCopyButtons } from "./copy.js";
import { race } from "./race.js";
import { setUpWorkbenches } from "./workbench.js";

function start() {
  document.documentElement.classList.add("js");
  setUpAnswers();
  setUpCopyButtons();
  document.querySelectorAll('[data-widget="race"]').forEach(race);
  setUpWorkbenches();
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
