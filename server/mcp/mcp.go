// Package mcp is Studyloop's MCP server: the /mcp endpoint, speaking the
// Streamable HTTP transport statelessly (one JSON-RPC message per POST, one
// application/json answer, no SSE stream, no session ids) in MCP 2026-07-28
// and in the 2025 revisions, chosen per request, and the four tools that let
// an agent create studies and read a user's studies and mastery.
//
// Message types (InitializeResult, Tool, CallToolResult, jsonrpc.Error) come
// from the official SDK, github.com/modelcontextprotocol/go-sdk, and tool
// schemas are inferred from Go types with github.com/google/jsonschema-go,
// as the SDK's AddTool does. The transport and the dispatch of the four
// methods are written here: the SDK's stateless handler builds a session per
// request, which costs about four times a bare handler (the contract asks
// for at least half its speed), and answers GET with 405 instead of the
// connect page.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studyloop/studyloop/server/study"
	"github.com/studyloop/studyloop/server/studyloop"
)

// ProtocolVersions are the MCP revisions this server speaks, newest first.
// The server card lists exactly these; New refuses a card that does not.
var ProtocolVersions = []string{modernVersion, "2025-11-25", "2025-06-18", "2025-03-26"}

// latestVersion answers an initialize asking for a version that does not
// begin with initialize, 2026-07-28 included (spec 2025-11-25,
// basic/lifecycle.mdx "Version Negotiation"). A request without
// an MCP-Protocol-Version header is taken as 2025-03-26, which every tool
// serves alike (basic/transports.mdx "Protocol Version Header").
const latestVersion = "2025-11-25"

// MaxBodyBytes is the largest POST body accepted (larger ones get 413). A
// 400,000-character study text fits when sent as UTF-8 (at most 4 bytes a
// character) or with characters of the Basic Multilingual Plane escaped
// (\uXXXX, 6 bytes); only text of mostly emoji with every one escaped as a
// surrogate pair (12 bytes) does not, and the 413 says to send UTF-8.
const MaxBodyBytes = 4 << 20

// Store is the storage the tools use; *store.DB implements it. Every method
// is scoped to one user, and a study of another user is reported as
// missing (studyloop.ENOTFOUND).
type Store interface {
	CreateStudy(ctx context.Context, userID int64, title, text string) (studyloop.Study, error)
	GetStudy(ctx context.Context, userID int64, id string) (studyloop.Study, error)
	ListStudies(ctx context.Context, userID int64, p studyloop.ListStudiesParams) ([]studyloop.Study, string, error)
}

// Mastery works out a student's mastery figures; *study.Service implements
// it, with the mastery cache it shares with the web app. A study of
// another user is reported as missing (studyloop.ENOTFOUND).
type Mastery interface {
	MasterySummary(ctx context.Context, userID int64, now time.Time) (studyloop.MasterySummary, error)
	RenderStudyMastery(ctx context.Context, userID int64, studyID string, now time.Time, r *study.Rendering) ([]byte, error)
}

// Options configures the MCP server.
type Options struct {
	// Store holds the studies. Required.
	Store Store
	// Mastery reports mastery. Required.
	Mastery Mastery
	// Info names the server in initialize; read it from the built server
	// card with ReadServerCard so that both agree. Name and Version are
	// required.
	Info ServerInfo
	// Notify, if non-nil, is called after a study is created, to wake the
	// processing workers.
	Notify func()
	// Logger receives internal errors. Nil discards them.
	Logger *slog.Logger
}

// Server answers MCP requests. Make one with New.
type Server struct {
	store     Store
	mastery   Mastery
	notify    func()
	logger    *slog.Logger
	info      *sdk.Implementation // serverInfo of initialize
	toolsList json.RawMessage     // the tools/list result, encoded once
	tools     map[string]*tool    // by name
	// masteryResult is get_mastery's result of one study, kept with
	// the figures in the mastery cache.
	masteryResult *study.Rendering
	modern        modernResults // the fixed 2026-07-28 results
}

// New returns a Server, or an error when the options are incomplete.
func New(opts Options) (*Server, error) {
	if opts.Store == nil {
		return nil, errors.New("mcp: Options.Store is required")
	}
	if opts.Mastery == nil {
		return nil, errors.New("mcp: Options.Mastery is required")
	}
	if opts.Info.Name == "" || opts.Info.Version == "" {
		return nil, errors.New("mcp: Options.Info needs a name and a version (read them with ReadServerCard)")
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		store:   opts.Store,
		mastery: opts.Mastery,
		notify:  opts.Notify,
		logger:  logger,
		info: &sdk.Implementation{
			Name:       opts.Info.Name,
			Title:      opts.Info.Title,
			Version:    opts.Info.Version,
			WebsiteURL: opts.Info.WebsiteURL,
		},
		tools:         make(map[string]*tool),
		masteryResult: study.NewRendering(studyMasteryResult),
	}
	tools, err := s.newTools()
	if err != nil {
		return nil, err
	}
	list := make([]*sdk.Tool, len(tools))
	for i, t := range tools {
		s.tools[t.def.Name] = t
		list[i] = t.def
	}
	s.toolsList, err = json.Marshal(struct {
		Tools []*sdk.Tool `json:"tools"`
	}{list})
	if err != nil {
		return nil, fmt.Errorf("mcp: encode tools: %w", err)
	}
	if s.modern, err = newModernResults(s.info, list); err != nil {
		return nil, fmt.Errorf("mcp: encode the %s results: %w", modernVersion, err)
	}
	return s, nil
}

// instructions tell the agent, in initialize, how the tools fit together.
const instructions = `Studyloop turns study material into spaced-repetition practice questions for the signed-in student. ` +
	`Use create_study with the student's notes (plain text or markdown, up to 400,000 characters); processing takes about a minute. ` +
	`Poll get_study_status until the status is ready or failed, then read progress with get_mastery. ` +
	`list_studies pages through the student's studies, newest first. ` +
	`You can create and read only: practice happens in Studyloop's own apps (the web app at /app), so point the student there to practise.`

// supportedVersion reports whether v is one of ProtocolVersions.
func supportedVersion(v string) bool { return slices.Contains(ProtocolVersions, v) }

// legacyVersion reports whether v is one of the 2025 revisions, the ones
// that begin with initialize.
func legacyVersion(v string) bool { return v != modernVersion && supportedVersion(v) }

// handle answers one decoded request of the given user in the 2025
// revisions.
func (s *Server) handle(ctx context.Context, userID int64, req *request) (any, *rpcError) {
	switch req.Method {
	case "initialize":
		return s.initialize(req.Params)
	case "ping":
		return struct{}{}, nil
	case "tools/list":
		return s.toolsList, nil
	case "tools/call":
		return s.callTool(ctx, userID, req.Params)
	}
	return nil, &rpcError{Code: codeMethodNotFound, Message: fmt.Sprintf("Method %q is not supported; this server answers initialize, ping, tools/list and tools/call.", req.Method)}
}

// initialize answers the initialize request: the negotiated protocol
// version, who the server is, and that it has tools.
func (s *Server) initialize(params json.RawMessage) (any, *rpcError) {
	var p sdk.InitializeParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	version := p.ProtocolVersion
	if !legacyVersion(version) {
		version = latestVersion
	}
	return &sdk.InitializeResult{
		ProtocolVersion: version,
		ServerInfo:      s.info,
		Capabilities:    &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
		Instructions:    instructions,
	}, nil
}
