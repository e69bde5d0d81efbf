// After an LTI launch inside the LMS's iframe (app/templates/lti/arrived.html): if the
// session cookie was kept, go on to the lesson; if not (third-party cookies blocked), the
// page keeps offering a new window, where the cookie is first-party.
const arrived = document.getElementById("lti-arrived");
if (arrived) {
  fetch("/api/me", { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then((answer) => {
      if (answer.ok) window.location.replace(arrived.dataset.target);
    })
    .catch(() => {});
}
