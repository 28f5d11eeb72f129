package mcp

// The MCP Server Card (SEP-2127, modelcontextprotocol/experimental-ext-server-card,
// schema.json) as built by Hugo from site/data. The server reads its name,
// title and version from the built card, so that initialize never
// contradicts the card, and refuses to start when the card's protocol
// versions differ from the ones this package speaks.

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
)

// ServerCardPath is where the built site holds the server card.
const ServerCardPath = "mcp/server-card"

// ServerInfo is who the server says it is in initialize.
type ServerInfo struct {
	Name       string // reverse-DNS name, as in the card
	Title      string
	Version    string
	WebsiteURL string
}

// ServerCard is the part of the card the server reads.
type ServerCard struct {
	Schema      string `json:"$schema"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	Version     string `json:"version"`
	Description string `json:"description"`
	WebsiteURL  string `json:"websiteUrl"`
	Remotes     []struct {
		Type                      string   `json:"type"`
		URL                       string   `json:"url"`
		SupportedProtocolVersions []string `json:"supportedProtocolVersions"`
	} `json:"remotes"`
}

// ReadServerCard reads the server card from the built site and returns the
// server's identity. It fails when the card is missing or malformed, or
// when its streamable-http remote does not list exactly ProtocolVersions.
func ReadServerCard(site fs.FS) (ServerInfo, error) {
	data, err := fs.ReadFile(site, ServerCardPath)
	if err != nil {
		return ServerInfo{}, fmt.Errorf("mcp: server card: %w", err)
	}
	return parseServerCard(data)
}

// parseServerCard is ReadServerCard of the card's bytes.
func parseServerCard(data []byte) (ServerInfo, error) {
	var card ServerCard
	if err := json.Unmarshal(data, &card); err != nil {
		return ServerInfo{}, fmt.Errorf("mcp: server card %s: %w", ServerCardPath, err)
	}
	if card.Name == "" || card.Version == "" {
		return ServerInfo{}, fmt.Errorf("mcp: server card %s has no name or version", ServerCardPath)
	}
	var remote int = -1
	for i, r := range card.Remotes {
		if r.Type == "streamable-http" {
			remote = i
		}
	}
	if remote < 0 {
		return ServerInfo{}, fmt.Errorf("mcp: server card %s lists no streamable-http remote", ServerCardPath)
	}
	if got := card.Remotes[remote].SupportedProtocolVersions; !slices.Equal(got, ProtocolVersions) {
		return ServerInfo{}, fmt.Errorf("mcp: server card lists protocol versions %q, but the server speaks %q; update site/data", got, ProtocolVersions)
	}
	return ServerInfo{Name: card.Name, Title: card.Title, Version: card.Version, WebsiteURL: card.WebsiteURL}, nil
}
