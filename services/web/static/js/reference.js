// The API reference (/schema): Swagger UI, served by this server, on the OpenAPI document.
globalThis.SwaggerUIBundle({url: "/schema/openapi.json", dom_id: "#swagger", deepLinking: true,
                            presets: [globalThis.SwaggerUIBundle.presets.apis]});
