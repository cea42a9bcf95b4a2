// Shows the served OpenAPI document. Kept out of the page: the policy allows no inline script.
window.ui = SwaggerUIBundle({
  url: "/api/v1/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  tryItOutEnabled: false,
});
