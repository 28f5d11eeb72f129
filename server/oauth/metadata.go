package oauth

import "net/http"

// Authorization Server Metadata, RFC 8414, and Protected Resource
// Metadata, RFC 9728.

// HandleAuthorizationServerMetadata answers GET
// /.well-known/oauth-authorization-server (and its /mcp variant).
func (s *Server) HandleAuthorizationServerMetadata() http.Handler {
	type metadata struct {
		Issuer                            string   `json:"issuer"`
		AuthorizationEndpoint             string   `json:"authorization_endpoint"`
		TokenEndpoint                     string   `json:"token_endpoint"`
		RegistrationEndpoint              string   `json:"registration_endpoint"`
		RevocationEndpoint                string   `json:"revocation_endpoint"`
		RevocationEndpointAuthMethods     []string `json:"revocation_endpoint_auth_methods_supported"`
		ResponseTypesSupported            []string `json:"response_types_supported"`
		GrantTypesSupported               []string `json:"grant_types_supported"`
		CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
		TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
		ScopesSupported                   []string `json:"scopes_supported"`
		AuthorizationResponseISSSupported bool     `json:"authorization_response_iss_parameter_supported"`
		ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
		ServiceDocumentation              string   `json:"service_documentation"`
	}
	base := s.issuer()
	doc := metadata{
		Issuer:                            base,
		AuthorizationEndpoint:             base + "/oauth/authorize",
		TokenEndpoint:                     base + "/oauth/token",
		RegistrationEndpoint:              base + "/oauth/register",
		RevocationEndpoint:                base + "/oauth/revoke",
		RevocationEndpointAuthMethods:     []string{"none"},
		ResponseTypesSupported:            []string{"code"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		TokenEndpointAuthMethodsSupported: []string{"none"},
		ScopesSupported:                   []string{},
		AuthorizationResponseISSSupported: true,
		ClientIDMetadataDocumentSupported: true,
		ServiceDocumentation:              base + "/developers/",
	}
	return metadataHandler(doc)
}

// HandleProtectedResourceMetadata answers GET
// /.well-known/oauth-protected-resource (and its /mcp variant).
func (s *Server) HandleProtectedResourceMetadata() http.Handler {
	type metadata struct {
		Resource               string   `json:"resource"`
		AuthorizationServers   []string `json:"authorization_servers"`
		BearerMethodsSupported []string `json:"bearer_methods_supported"`
		ScopesSupported        []string `json:"scopes_supported"`
		ResourceName           string   `json:"resource_name"`
	}
	return metadataHandler(metadata{
		Resource:               s.cfg.MCPResource(),
		AuthorizationServers:   []string{s.issuer()},
		BearerMethodsSupported: []string{"header"},
		ScopesSupported:        []string{},
		ResourceName:           "Studyloop MCP server",
	})
}

func metadataHandler(doc any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, doc)
	})
}
