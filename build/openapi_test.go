package build

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// oas31Schema compiles the official OpenAPI 3.1 schema (2022-10-07, as
// embedded in libopenapi) with a JSON Schema 2020-12 validator.
func oas31Schema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(datamodel.OpenAPI31SchemaData))
	if err != nil {
		t.Fatalf("OpenAPI 3.1 schema: %v", err)
	}
	const id = "https://spec.openapis.org/oas/3.1/schema/2022-10-07"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatalf("compile the OpenAPI 3.1 schema: %v", err)
	}
	return sch
}

// validateOpenAPI checks a description three ways: against the official
// OpenAPI 3.1 schema, by building libopenapi's model (which resolves every
// $ref), and by compiling each component schema as JSON Schema 2020-12.
func validateOpenAPI(t *testing.T, oas *jsonschema.Schema, body []byte) error {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return err
	}
	if err := oas.Validate(doc); err != nil {
		return err
	}
	d, err := libopenapi.NewDocumentWithConfiguration(body, &datamodel.DocumentConfiguration{
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return err
	}
	if _, err := d.BuildV3Model(); err != nil {
		return err
	}
	const id = "urn:studyloop:openapi.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(id, doc); err != nil {
		return err
	}
	components, _ := doc.(map[string]any)["components"].(map[string]any)
	schemas, _ := components["schemas"].(map[string]any)
	for name := range schemas {
		if _, err := c.Compile(id + "#/components/schemas/" + name); err != nil {
			return err
		}
	}
	return nil
}

// TestOpenAPIValidatorRejectsBrokenDescriptions makes sure the validation
// above can fail: each mutation of the built description must be caught.
func TestOpenAPIValidatorRejectsBrokenDescriptions(t *testing.T) {
	s := site(t)
	oas := oas31Schema(t)
	body := []byte(readFile(t, s, "openapi.json"))
	tests := []struct {
		name   string
		mutate func(doc map[string]any)
	}{
		{"no info", func(d map[string]any) { delete(d, "info") }},
		{"wrong version", func(d map[string]any) { d["openapi"] = "3.0.3" }},
		{"response without description", func(d map[string]any) {
			op := d["paths"].(map[string]any)["/api/health"].(map[string]any)["get"].(map[string]any)
			op["responses"].(map[string]any)["200"] = map[string]any{"content": map[string]any{}}
		}},
		{"parameter without location", func(d map[string]any) {
			op := d["paths"].(map[string]any)["/oauth/authorize"].(map[string]any)["get"].(map[string]any)
			delete(op["parameters"].([]any)[0].(map[string]any), "in")
		}},
		{"dangling $ref", func(d map[string]any) {
			op := d["paths"].(map[string]any)["/api/health"].(map[string]any)["get"].(map[string]any)
			op["responses"].(map[string]any)["200"] = map[string]any{"$ref": "#/components/responses/Nowhere"}
		}},
		{"invalid JSON Schema", func(d map[string]any) {
			d["components"].(map[string]any)["schemas"].(map[string]any)["Health"] = map[string]any{"type": 7}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(body, &doc); err != nil {
				t.Fatal(err)
			}
			tt.mutate(doc)
			broken, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			if err := validateOpenAPI(t, oas, broken); err == nil {
				t.Fatal("the broken description passed validation")
			}
		})
	}
}

type openAPIDoc struct {
	OpenAPI string `json:"openapi"`
	Info    struct {
		Title, Version, Description string
	} `json:"info"`
	Servers    []struct{ URL string }                `json:"servers"`
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		PathItems       map[string]map[string]json.RawMessage    `json:"pathItems"`
		SecuritySchemes map[string]struct{ Type, Scheme string } `json:"securitySchemes"`
	} `json:"components"`
}

type openAPIOperation struct {
	Responses   map[string]json.RawMessage `json:"responses"`
	Security    []map[string][]string      `json:"security"`
	RequestBody struct {
		Content map[string]struct {
			Schema struct {
				OneOf []json.RawMessage `json:"oneOf"`
			} `json:"schema"`
		} `json:"content"`
	} `json:"requestBody"`
}

// operation returns the operation at path p and method, following a path
// item $ref into components.pathItems; ok is false when there is none.
func (d openAPIDoc) operation(t *testing.T, p, method string) (op openAPIOperation, ok bool) {
	t.Helper()
	item := d.Paths[p]
	if raw, isRef := item["$ref"]; isRef {
		var ref string
		if err := json.Unmarshal(raw, &ref); err != nil {
			t.Fatalf("%s: $ref: %v", p, err)
		}
		item = d.Components.PathItems[strings.TrimPrefix(ref, "#/components/pathItems/")]
	}
	raw, ok := item[method]
	if !ok {
		return op, false
	}
	if err := json.Unmarshal(raw, &op); err != nil {
		t.Fatalf("%s %s: %v", method, p, err)
	}
	return op, true
}

func TestOpenAPI(t *testing.T) {
	s := site(t)
	body := []byte(readFile(t, s, "openapi.json"))
	if err := validateOpenAPI(t, oas31Schema(t), body); err != nil {
		t.Fatalf("openapi.json is not a valid OpenAPI 3.1 description: %v", err)
	}
	var doc openAPIDoc
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Info.Version != "1.0.0" {
		t.Errorf("openapi %q, info.version %q; want 3.1.0 and 1.0.0", doc.OpenAPI, doc.Info.Version)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != Placeholder {
		t.Errorf("servers %+v, want the placeholder origin", doc.Servers)
	}
	if sch := doc.Components.SecuritySchemes["bearerAuth"]; sch.Type != "http" || sch.Scheme != "bearer" {
		t.Errorf("bearerAuth scheme %+v", sch)
	}

	statuses := func(p, method string) []string {
		op, _ := doc.operation(t, p, method)
		var codes []string
		for c := range op.Responses {
			codes = append(codes, c)
		}
		slices.Sort(codes)
		return codes
	}
	tests := []struct {
		path, method string
		want         []string
	}{
		{"/mcp", "post", []string{"200", "202", "400", "401", "413", "415"}},
		{"/mcp", "get", []string{"200", "405"}},
		{"/oauth/register", "post", []string{"201", "400", "413", "429"}},
		{"/oauth/authorize", "get", []string{"200", "303"}},
		{"/oauth/token", "post", []string{"200", "400", "401"}},
		{"/.well-known/oauth-authorization-server", "get", []string{"200"}},
		{"/.well-known/oauth-authorization-server/mcp", "get", []string{"200"}},
		{"/.well-known/oauth-protected-resource", "get", []string{"200"}},
		{"/.well-known/oauth-protected-resource/mcp", "get", []string{"200"}},
		{"/mcp/server-card", "get", []string{"200"}},
		{"/.well-known/ai-catalog.json", "get", []string{"200"}},
		{"/llms.txt", "get", []string{"200"}},
		{"/llms-full.txt", "get", []string{"200"}},
		{"/sitemap-agents.xml", "get", []string{"200"}},
		{"/openapi.json", "get", []string{"200"}},
		{"/api/health", "get", []string{"200"}},
	}
	for _, p := range pages {
		tests = append(tests, struct {
			path, method string
			want         []string
		}{p.twin, "get", []string{"200"}})
		if p.html != "/mcp/" {
			// Documented without the trailing slash (Redocly's
			// no-path-trailing-slash); /x and /x/ answer alike.
			path := p.html
			if path != "/" {
				path = strings.TrimSuffix(path, "/")
			}
			tests = append(tests, struct {
				path, method string
				want         []string
			}{path, "get", []string{"200", "406"}})
		}
	}
	for _, tt := range tests {
		got := statuses(tt.path, tt.method)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s %s documents %v, lacks %s", strings.ToUpper(tt.method), tt.path, got, w)
			}
		}
	}
	mcpPost, _ := doc.operation(t, "/mcp", "post")
	if sec := mcpPost.Security; len(sec) != 2 || sec[0]["bearerAuth"] == nil || sec[1]["oauth2"] == nil {
		t.Errorf("POST /mcp security %v, want bearerAuth or oauth2 (the same token, described twice)", sec)
	}
	token, _ := doc.operation(t, "/oauth/token", "post")
	form := token.RequestBody.Content["application/x-www-form-urlencoded"]
	if len(form.Schema.OneOf) != 2 {
		t.Errorf("token request has %d variants, want 2 (code exchange, refresh)", len(form.Schema.OneOf))
	}
}

// TestDiscoveryDocuments checks the server card (SEP-2127) and AI catalog,
// and that name, title, version and protocol versions agree with openapi.json.
func TestDiscoveryDocuments(t *testing.T) {
	s := site(t)
	var card struct {
		Schema      string `json:"$schema"`
		Name        string
		Version     string
		Title       string
		Description string
		WebsiteURL  string `json:"websiteUrl"`
		Icons       []struct {
			Src, MimeType string
			Sizes         []string
		}
		Remotes []struct {
			Type                      string
			URL                       string
			SupportedProtocolVersions []string
		}
	}
	if err := json.Unmarshal([]byte(readFile(t, s, "mcp/server-card")), &card); err != nil {
		t.Fatalf("server card: %v", err)
	}
	if card.Schema != "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json" {
		t.Errorf("$schema %q", card.Schema)
	}
	if !regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`).MatchString(card.Name) || len(card.Name) < 3 || len(card.Name) > 200 {
		t.Errorf("name %q is not a reverse-DNS server name", card.Name)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(card.Version) {
		t.Errorf("version %q is not semver", card.Version)
	}
	if n := len([]rune(card.Description)); n < 1 || n > 100 {
		t.Errorf("description has %d characters, want 1 to 100", n)
	}
	if card.Title != "Studyloop" || card.WebsiteURL != Placeholder+"/" {
		t.Errorf("title %q, websiteUrl %q", card.Title, card.WebsiteURL)
	}
	if len(card.Icons) != 1 || card.Icons[0].Src != Placeholder+"/icon.svg" || card.Icons[0].MimeType != "image/svg+xml" {
		t.Errorf("icons %+v", card.Icons)
	}
	wantVersions := []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}
	if len(card.Remotes) != 1 || card.Remotes[0].Type != "streamable-http" || card.Remotes[0].URL != Placeholder+"/mcp" ||
		!slices.Equal(card.Remotes[0].SupportedProtocolVersions, wantVersions) {
		t.Errorf("remotes %+v", card.Remotes)
	}

	var catalog struct {
		SpecVersion string `json:"specVersion"`
		Host        struct {
			DisplayName string `json:"displayName"`
		}
		Entries []struct{ Identifier, Type, URL string }
	}
	if err := json.Unmarshal([]byte(readFile(t, s, ".well-known/ai-catalog.json")), &catalog); err != nil {
		t.Fatalf("AI catalog: %v", err)
	}
	if catalog.SpecVersion != "1.0" || catalog.Host.DisplayName != card.Title || len(catalog.Entries) != 1 {
		t.Fatalf("catalog %+v", catalog)
	}
	e := catalog.Entries[0]
	if !strings.HasPrefix(e.Identifier, "urn:air:") || e.Type != "application/mcp-server-card+json" || e.URL != Placeholder+"/mcp/server-card" {
		t.Errorf("catalog entry %+v", e)
	}

	var doc openAPIDoc
	if err := json.Unmarshal([]byte(readFile(t, s, "openapi.json")), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Info.Title != card.Title || doc.Info.Version != card.Version || doc.Info.Description != card.Description {
		t.Errorf("openapi.json info %+v disagrees with the server card (%s %s)", doc.Info, card.Title, card.Version)
	}
	llms := readFile(t, s, "llms.txt")
	if !strings.Contains(llms, strings.Join(wantVersions, ", ")) {
		t.Error("llms.txt does not list the protocol versions of the server card")
	}
}

// TestOpenAPIOperations checks, for every operation, what Redocly's
// recommended rules ask: a unique operationId, a 4xx response among those
// documented, and security stated (empty, public, everywhere but POST
// /mcp); and a licence in info and no path ending in a slash but "/".
func TestOpenAPIOperations(t *testing.T) {
	var doc struct {
		Info struct {
			License *struct{ Name string } `json:"license"`
		} `json:"info"`
		Paths map[string]map[string]struct {
			OperationID string                     `json:"operationId"`
			Responses   map[string]json.RawMessage `json:"responses"`
			Security    *[]map[string][]string     `json:"security"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(readFile(t, site(t), "openapi.json")), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Info.License == nil || doc.Info.License.Name == "" {
		t.Error("info has no licence")
	}
	ids := map[string]string{}
	for path, item := range doc.Paths {
		if path != "/" && strings.HasSuffix(path, "/") {
			t.Errorf("path %s ends in a slash", path)
		}
		for method, op := range item {
			where := strings.ToUpper(method) + " " + path
			if op.OperationID == "" {
				t.Errorf("%s has no operationId", where)
			} else if other, dup := ids[op.OperationID]; dup {
				t.Errorf("%s and %s share operationId %s", where, other, op.OperationID)
			}
			ids[op.OperationID] = where
			if !slices.ContainsFunc(slices.Collect(maps.Keys(op.Responses)), func(code string) bool { return code[0] == '4' }) {
				t.Errorf("%s documents no 4xx response", where)
			}
			switch {
			case op.Security == nil:
				t.Errorf("%s states no security", where)
			case where == "POST /mcp" && len(*op.Security) == 0:
				t.Errorf("POST /mcp is documented as public")
			case where != "POST /mcp" && len(*op.Security) != 0:
				t.Errorf("%s is public but documents security %v", where, *op.Security)
			}
		}
	}
}
