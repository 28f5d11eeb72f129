package mcp

// MCP 2026-07-28 (spec 2026-07-28: changelog.mdx, basic/versioning.mdx,
// basic/transports/streamable-http.mdx, server/utilities/caching.mdx),
// served beside the 2025 revisions and chosen per request: a request whose
// MCP-Protocol-Version header says 2026-07-28 follows the rules here, and
// everything else, initialize included, follows the 2025 rules unchanged.
//
// A 2026 request names its method in the Mcp-Method header and, for
// tools/call, its tool in Mcp-Name; carries its protocol version and the
// client's capabilities in params._meta; and gets a result marked
// resultType "complete" with the server's identity in result._meta. There
// is no initialize, ping or session: server/discover says what the server
// speaks. None of the methods served needs a client capability, so the
// MissingRequiredClientCapabilities error (-32021) never arises.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/studyloop/studyloop/server/respond"
)

// modernVersion is the revision served by the rules in this file.
const modernVersion = "2026-07-28"

// Header names of the 2026 transport.
const (
	headerMethod = "Mcp-Method"
	headerName   = "Mcp-Name"
)

// The JSON-RPC error codes added in 2026-07-28.
const (
	codeHeaderMismatch             = sdk.CodeHeaderMismatch             // -32020
	codeUnsupportedProtocolVersion = sdk.CodeUnsupportedProtocolVersion // -32022
)

// Caching hints of the tools/list and server/discover results
// (server/utilities/caching.mdx). The four tools and their schemas are the
// same for every student and change only with a new release, so any client
// or intermediary may keep them (public) for an hour; a deploy is seen
// within the hour.
const (
	listTTLMs      = 3_600_000
	listCacheScope = "public"
)

// requestMeta is the per-request _meta of 2026-07-28, as far as it is checked.
type requestMeta struct {
	ProtocolVersion    *string         `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
}

// modernParams are the params of a 2026 request: what the checks read, and
// the params of tools/call, the one method served that takes any.
type modernParams struct {
	Meta      *requestMeta    `json:"_meta"`
	Name      *string         `json:"name"`      // tools/call only
	Arguments json.RawMessage `json:"arguments"` // tools/call only
}

// modernResults are the 2026 results that never change, encoded once
// without the members every 2026 result ends with, and those members.
type modernResults struct {
	discover  json.RawMessage // server/discover
	toolsList json.RawMessage // tools/list
	suffix    []byte          // `,"resultType":"complete","_meta":{…}}`
}

// newModernResults encodes the fixed 2026 results for a server with the
// given identity and tools.
func newModernResults(info *sdk.Implementation, tools []*sdk.Tool) (modernResults, error) {
	meta, err := json.Marshal(map[string]any{sdk.MetaKeyServerInfo: info})
	if err != nil {
		return modernResults{}, err
	}
	discover, err := json.Marshal(struct {
		SupportedVersions []string                `json:"supportedVersions"`
		Capabilities      *sdk.ServerCapabilities `json:"capabilities"`
		Instructions      string                  `json:"instructions"`
		TTLMs             int                     `json:"ttlMs"`
		CacheScope        string                  `json:"cacheScope"`
	}{ProtocolVersions, &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}}, instructions, listTTLMs, listCacheScope})
	if err != nil {
		return modernResults{}, err
	}
	toolsList, err := json.Marshal(struct {
		Tools      []*sdk.Tool `json:"tools"`
		TTLMs      int         `json:"ttlMs"`
		CacheScope string      `json:"cacheScope"`
	}{tools, listTTLMs, listCacheScope})
	if err != nil {
		return modernResults{}, err
	}
	suffix := append([]byte(`,"resultType":"complete","_meta":`), meta...)
	return modernResults{discover: discover, toolsList: toolsList, suffix: append(suffix, '}')}, nil
}

// response encodes the answer to the request with the given id: the result
// object with resultType and _meta added before its closing brace, spliced
// in without being decoded again.
func (m *modernResults) response(id, result json.RawMessage) []byte {
	const head, tail = `{"jsonrpc":"2.0","id":`, `,"result":`
	buf := make([]byte, 0, len(head)+len(id)+len(tail)+len(result)+len(m.suffix)+1)
	buf = append(buf, head...)
	buf = append(buf, id...)
	buf = append(buf, tail...)
	buf = append(buf, result[:len(result)-1]...)
	buf = append(buf, m.suffix...)
	return append(buf, '}')
}

// serveModern answers one message of the 2026-07-28 revision.
func (s *Server) serveModern(w http.ResponseWriter, r *http.Request, userID int64, req *request) {
	if req.isResponse || req.isNotification() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	result, rerr := s.handleModern(r.Context(), userID, r.Header, req)
	if rerr != nil {
		writeError(w, modernStatus(rerr.Code), req.ID, rerr)
		return
	}
	respond.EncodedJSON(w, http.StatusOK, s.modern.response(req.ID, result))
}

// modernStatus is the HTTP status of a 2026 error answer
// (basic/transports/streamable-http.mdx): 404 for a method not served,
// 400 for the rest.
func modernStatus(code int64) int {
	if code == codeMethodNotFound {
		return http.StatusNotFound
	}
	return http.StatusBadRequest
}

// handleModern checks a 2026 request's headers and _meta against its body
// and answers it.
func (s *Server) handleModern(ctx context.Context, userID int64, h http.Header, req *request) (json.RawMessage, *rpcError) {
	var p modernParams
	if rerr := decodeParams(req.Params, &p); rerr != nil {
		return nil, rerr
	}
	if got := strings.TrimSpace(h.Get(headerMethod)); got != req.Method {
		return nil, headerMismatch(headerMethod, got, req.Method)
	}
	if req.Method == "tools/call" {
		if p.Name == nil {
			return nil, &rpcError{Code: codeInvalidParams, Message: `Invalid params: tools/call needs "name", the tool to call.`}
		}
		got, ok := decodeHeaderValue(strings.TrimSpace(h.Get(headerName)))
		if !ok || got != *p.Name {
			return nil, headerMismatch(headerName, h.Get(headerName), *p.Name)
		}
	}
	if rerr := checkMeta(p.Meta, h.Get(headerProtocolVersion)); rerr != nil {
		return nil, rerr
	}
	switch req.Method {
	case "server/discover":
		return s.modern.discover, nil
	case "tools/list":
		return s.modern.toolsList, nil
	case "tools/call":
		result, rerr := s.call(ctx, userID, callParams{Name: *p.Name, Arguments: p.Arguments})
		if rerr != nil {
			return nil, rerr
		}
		if encoded, ok := result.(json.RawMessage); ok {
			return encoded, nil
		}
		encoded, err := json.Marshal(result)
		if err != nil {
			s.logger.ErrorContext(ctx, "mcp: encode tool result", "err", err)
			return nil, &rpcError{Code: codeInternalError, Message: "Internal error: the result could not be encoded."}
		}
		return encoded, nil
	}
	return nil, &rpcError{Code: codeMethodNotFound, Message: fmt.Sprintf("Method %q is not part of MCP %s here; this server answers server/discover, tools/list and tools/call (initialize and ping exist only in the 2025 revisions).", req.Method, modernVersion)}
}

// checkMeta checks the per-request _meta every 2026 request carries: the
// protocol version, equal to the header's, and the client's capabilities
// (an object; none is required). clientInfo is optional.
func checkMeta(meta *requestMeta, headerVersion string) *rpcError {
	const missing = `Invalid params: MCP %s requests carry params._meta with %q (%s).`
	if meta == nil || meta.ProtocolVersion == nil {
		return &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf(missing, modernVersion, sdk.MetaKeyProtocolVersion, "a string, as in the MCP-Protocol-Version header")}
	}
	if len(meta.ClientCapabilities) == 0 || meta.ClientCapabilities[0] != '{' {
		return &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf(missing, modernVersion, sdk.MetaKeyClientCapabilities, "an object, {} when the client declares none")}
	}
	if *meta.ProtocolVersion != headerVersion {
		return headerMismatch(headerProtocolVersion, headerVersion, *meta.ProtocolVersion)
	}
	return nil
}

// headerMismatch is the -32020 error for a header that does not say what
// the body says.
func headerMismatch(header, got, want string) *rpcError {
	if got == "" {
		return &rpcError{Code: codeHeaderMismatch, Message: fmt.Sprintf("Header mismatch: the %s header is missing; send %q, as in the body.", header, want)}
	}
	return &rpcError{Code: codeHeaderMismatch, Message: fmt.Sprintf("Header mismatch: the %s header says %q but the body says %q.", header, got, want)}
}

// decodeHeaderValue decodes a header value sent in the =?base64?…?= form
// that 2026 clients use for values outside printable ASCII; other values
// are taken literally. It reports false for a malformed encoding.
func decodeHeaderValue(v string) (string, bool) {
	encoded, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, true
	}
	encoded, ok = strings.CutSuffix(encoded, "?=")
	if !ok {
		return v, true
	}
	decoded, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return "", false
	}
	return string(decoded), true
}

// metaVersion returns the protocol version a request's params._meta names,
// if any. Requests of the 2025 revisions name none, so the search for the
// key spares them the decoding.
func metaVersion(params json.RawMessage) (string, bool) {
	if !bytes.Contains(params, []byte(sdk.MetaKeyProtocolVersion)) {
		return "", false
	}
	var p modernParams
	if jsonv2.Unmarshal(params, &p) != nil || p.Meta == nil || p.Meta.ProtocolVersion == nil {
		return "", false
	}
	return *p.Meta.ProtocolVersion, true
}

// unsupportedVersion is the -32022 error for an MCP-Protocol-Version this
// server does not speak, naming the ones it does.
func unsupportedVersion(requested string) *rpcError {
	data, _ := json.Marshal(sdk.UnsupportedProtocolVersionData{Supported: ProtocolVersions, Requested: requested})
	return &rpcError{
		Code: codeUnsupportedProtocolVersion,
		Message: fmt.Sprintf("Unsupported protocol version %q; this server speaks %s. With a 2025 version, start with initialize; with %s, call server/discover.",
			requested, strings.Join(ProtocolVersions, ", "), modernVersion),
		Data: data,
	}
}
