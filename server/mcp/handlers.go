package mcp

import (
	"fmt"
	"net/http"

	"github.com/studyloop/studyloop/server/compress"
	"github.com/studyloop/studyloop/server/static"
)

// Handlers are the routes of the MCP surface, wired in server/web/routes.go.
type Handlers struct {
	// Endpoint answers POST /mcp behind the bearer check; answers of
	// compress.DynamicMinSize bytes or more go out compressed when the
	// client accepts zstd or gzip.
	Endpoint http.Handler
	// Guard is the Host/Origin check and CORS of every /mcp method.
	Guard func(http.Handler) http.Handler
	// ServerCard answers GET and OPTIONS /mcp/server-card.
	ServerCard http.Handler
	// AICatalog answers GET and OPTIONS /.well-known/ai-catalog.json.
	AICatalog http.Handler
}

// HandlersOptions configure NewHandlers.
type HandlersOptions struct {
	// Server configures the endpoint; its Info is read from Site's server
	// card, so that initialize and the card always agree.
	Server Options
	// Guard configures the Host/Origin check.
	Guard GuardOptions
	// Site is the built site, loaded with the public origin, which serves
	// the discovery documents.
	Site *static.Site
}

// NewHandlers builds the MCP server, naming it from the server card the
// site serves, and the handlers of the discovery documents.
func NewHandlers(o HandlersOptions) (Handlers, error) {
	card, ok := o.Site.Lookup("/" + ServerCardPath)
	if !ok {
		return Handlers{}, fmt.Errorf("mcp: server card %s is not in the built site (run make site)", ServerCardPath)
	}
	info, err := parseServerCard(card.File.Body)
	if err != nil {
		return Handlers{}, err
	}
	o.Server.Info = info
	server, err := New(o.Server)
	if err != nil {
		return Handlers{}, err
	}
	compressed, err := compress.Responses()
	if err != nil {
		return Handlers{}, err
	}
	guard, err := Guard(o.Guard)
	if err != nil {
		return Handlers{}, err
	}
	serverCard, err := HandleServerCard(o.Site)
	if err != nil {
		return Handlers{}, err
	}
	aiCatalog, err := HandleAICatalog(o.Site)
	if err != nil {
		return Handlers{}, err
	}
	return Handlers{Endpoint: compressed(server), Guard: guard, ServerCard: serverCard, AICatalog: aiCatalog}, nil
}
