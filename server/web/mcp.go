package web

import (
	"net/http"
	"strings"

	"github.com/studyloop/studyloop/build"
	"github.com/studyloop/studyloop/server/mcp"
	"github.com/studyloop/studyloop/server/static"
)

// mcpHandlers are the parts of the MCP surface that routes.go wires.
type mcpHandlers struct {
	endpoint   http.Handler                    // POST /mcp, behind the bearer check
	guard      func(http.Handler) http.Handler // Host/Origin check and CORS for /mcp
	serverCard http.Handler                    // GET, OPTIONS /mcp/server-card
	aiCatalog  http.Handler                    // GET, OPTIONS /.well-known/ai-catalog.json
}

// newMCPHandlers builds the MCP server, naming it from the built server
// card so that initialize and the card always agree, and serves the
// discovery documents from the loaded site.
func newMCPHandlers(d Deps, site *static.Site, mastery mcp.Mastery) (mcpHandlers, error) {
	info, err := mcp.ReadServerCard(d.Site)
	if err != nil {
		return mcpHandlers{}, err
	}
	// The card is built with a placeholder origin; the served card names
	// BASE_URL, and so does serverInfo.
	info.WebsiteURL = strings.ReplaceAll(info.WebsiteURL, build.Placeholder, d.Config.BaseURL)
	endpoint, err := mcp.New(mcp.Options{Store: d.DB, Mastery: mastery, Info: info, Notify: d.NotifyWorkers, Logger: d.Logger})
	if err != nil {
		return mcpHandlers{}, err
	}
	guard, err := mcp.Guard(mcp.GuardOptions{BaseURL: d.Config.BaseURL, AllowedHosts: d.Config.AllowedHosts})
	if err != nil {
		return mcpHandlers{}, err
	}
	serverCard, err := mcp.HandleServerCard(site)
	if err != nil {
		return mcpHandlers{}, err
	}
	aiCatalog, err := mcp.HandleAICatalog(site)
	if err != nil {
		return mcpHandlers{}, err
	}
	return mcpHandlers{endpoint: endpoint, guard: guard, serverCard: serverCard, aiCatalog: aiCatalog}, nil
}
