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

// After a teacher's choice in a deep-linking request (app/templates/lti/deep_link_return.html):
// the signed answer goes back to the platform at once; the button is there without scripts.
const deepLinkReturn = document.getElementById("lti-deep-link-return");
if (deepLinkReturn) deepLinkReturn.submit();
