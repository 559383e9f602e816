// Draws the API reference from the document beside this page (/v1/openapi.json),
// with nothing fetched from elsewhere: no validator badge, no remote assets.
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: new URL("openapi.json", document.baseURI).href,
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    validatorUrl: null,
    tryItOutEnabled: false,
  });
});
