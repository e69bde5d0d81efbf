// Starts Swagger UI on /docs. A file of its own, not an inline script, so that the page
// runs under the Content-Security-Policy (script-src 'self'); the page gives the address
// of the OpenAPI document on this script's tag.
(function () {
  "use strict";
  // Deferred after swagger-ui-bundle.js, so SwaggerUIBundle is there.
  const bundle = window.SwaggerUIBundle;
  window.ui = bundle({
    url: document.currentScript.dataset.openapiUrl,
    dom_id: "#swagger-ui",
    layout: "BaseLayout",
    deepLinking: true,
    showExtensions: true,
    showCommonExtensions: true,
    validatorUrl: null, // no badge from the online validator: nothing leaves the network
    presets: [bundle.presets.apis, bundle.SwaggerUIStandalonePreset],
  });
})();
