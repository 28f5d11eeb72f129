package mcp

// JSON-RPC 2.0 (https://www.jsonrpc.org/specification) as MCP 2025-11-25
// restricts it (basic/index.mdx): request ids are strings or numbers, never
// null, and batches are not supported (removed in 2025-06-18).

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The JSON-RPC error codes this server sends.
const (
	codeParseError     = jsonrpc.CodeParseError
	codeInvalidRequest = jsonrpc.CodeInvalidRequest
	codeMethodNotFound = jsonrpc.CodeMethodNotFound
	codeInvalidParams  = jsonrpc.CodeInvalidParams
	codeInternalError  = jsonrpc.CodeInternalError
)

// rpcError is a JSON-RPC error object, the SDK's wire type.
type rpcError = jsonrpc.Error

// nullID is the id of an error answering a message whose id is unknown.
var nullID = json.RawMessage("null")

// request is one decoded JSON-RPC message of any kind.
type request struct {
	ID     json.RawMessage // nil when absent; valid ids are strings or numbers
	Method string
	Params json.RawMessage
	// isResponse marks a JSON-RPC response (result or error) sent by the
	// client; it is acknowledged and otherwise ignored.
	isResponse bool
}

// isNotification reports whether req expects no answer.
func (r *request) isNotification() bool { return r.ID == nil }

// wireMessage is a message as it arrives, every member kept raw so that
// absent, null and mistyped members can be told apart.
type wireMessage struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// decodeMessage parses one POST body. On failure it returns the error to
// send and the id to send it with (null when the id is unusable).
func decodeMessage(body []byte) (*request, json.RawMessage, *rpcError) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if !json.Valid(trimmed) {
			return nil, nullID, &rpcError{Code: codeParseError, Message: "Parse error: the body is not valid JSON."}
		}
		return nil, nullID, &rpcError{Code: codeInvalidRequest, Message: "Batches are not supported: send one JSON-RPC message per request."}
	}
	var w wireMessage
	if err := json.Unmarshal(body, &w); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return nil, nullID, &rpcError{Code: codeInvalidRequest, Message: "Invalid request: the body must be one JSON-RPC 2.0 object."}
		}
		return nil, nullID, &rpcError{Code: codeParseError, Message: "Parse error: the body is not valid JSON."}
	}
	id := w.ID
	if w.Method == nil && string(id) == "null" && w.Error != nil && string(w.JSONRPC) == `"2.0"` {
		// The client's error response to a message whose id it could not
		// read (JSON-RPC 2.0 §5): a response, so 202.
		return &request{ID: id, isResponse: true}, nil, nil
	}
	if id != nil && !validID(id) {
		return nil, nullID, &rpcError{Code: codeInvalidRequest, Message: "Invalid request: id must be a string or a number."}
	}
	replyID := id
	if replyID == nil {
		replyID = nullID
	}
	if string(w.JSONRPC) != `"2.0"` {
		return nil, replyID, &rpcError{Code: codeInvalidRequest, Message: `Invalid request: "jsonrpc" must be "2.0".`}
	}
	if w.Method == nil {
		if id != nil && (w.Result != nil || w.Error != nil) {
			return &request{ID: id, isResponse: true}, nil, nil
		}
		return nil, replyID, &rpcError{Code: codeInvalidRequest, Message: `Invalid request: "method" is missing.`}
	}
	var method string
	if err := json.Unmarshal(w.Method, &method); err != nil || method == "" {
		return nil, replyID, &rpcError{Code: codeInvalidRequest, Message: `Invalid request: "method" must be a non-empty string.`}
	}
	params := w.Params
	if string(params) == "null" {
		params = nil
	}
	if params != nil && params[0] != '{' {
		return nil, replyID, &rpcError{Code: codeInvalidParams, Message: `Invalid params: "params" must be an object.`}
	}
	return &request{ID: id, Method: method, Params: params}, nil, nil
}

// validID reports whether a raw id is a string or a number. Null is
// excluded: MCP forbids null request ids.
func validID(raw json.RawMessage) bool {
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		return true
	}
	return false
}

// decodeParams decodes a request's params into dst, reporting -32602 when
// they do not fit. Absent params decode as an empty object.
func decodeParams(params json.RawMessage, dst any) *rpcError {
	if params == nil {
		return nil
	}
	if err := json.Unmarshal(params, dst); err != nil {
		return &rpcError{Code: codeInvalidParams, Message: "Invalid params: " + err.Error()}
	}
	return nil
}

// response is a JSON-RPC response as sent.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// encodeResponse encodes a response to the message with the given id. A
// result that is already encoded (json.RawMessage, as tools/list and tool
// results are) is spliced in as it is: json.Marshal would re-validate and
// compact it, which costs more than answering a ping.
func encodeResponse(id json.RawMessage, result any, rerr *rpcError) ([]byte, error) {
	raw, ok := result.(json.RawMessage)
	if rerr != nil || !ok {
		if rerr != nil {
			result = nil
		}
		return json.Marshal(response{JSONRPC: "2.0", ID: id, Result: result, Error: rerr})
	}
	buf := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+len(id)+len(raw))
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, id...)
	buf = append(buf, `,"result":`...)
	buf = append(buf, raw...)
	return append(buf, '}'), nil
}
