package mcp

// JSON-RPC 2.0 (https://www.jsonrpc.org/specification) as MCP 2025-11-25
// restricts it (basic/index.mdx): request ids are strings or numbers, never
// null, and batches are not supported (removed in 2025-06-18).
//
// Messages are read strictly, so that this server and anything in front of
// it (a proxy or firewall filtering on "method") cannot read one body two
// ways: the body must be valid UTF-8 JSON (RFC 8259 §8.1) with unique
// member names at every depth (I-JSON, RFC 7493 §2.3), members are matched
// exactly (a top-level member differing from a JSON-RPC one only in case is
// refused), and an id is a string of at most maxIDBytes bytes or an integer
// within ±(2^53-1) (I-JSON §2.2). Anything else is answered with id null,
// never with what was sent. Decoding is github.com/go-json-experiment/json,
// which checks all of this as it reads.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
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

// Bounds on request ids. Real ids are counters or UUIDs; an id is echoed
// in the answer, so it must not be a way to make answers large.
const (
	maxIDBytes    = 256       // a string id as sent, quotes included
	maxIDInt      = 1<<53 - 1 // integers JSON parsers read exactly
	maxIDIntChars = len("-9007199254740991")
)

// rpcError is a JSON-RPC error object, the SDK's wire type.
type rpcError = jsonrpc.Error

// nullID is the id of an error answering a message whose id is unknown.
var nullID = json.RawMessage("null")

// request is one decoded JSON-RPC message of any kind.
type request struct {
	ID     json.RawMessage // nil when absent; valid ids are strings or integers
	Method string
	Params json.RawMessage
	// isResponse marks a JSON-RPC response (result or error) sent by the
	// client; it is acknowledged and otherwise ignored.
	isResponse bool
}

// isNotification reports whether req expects no answer.
func (r *request) isNotification() bool { return r.ID == nil }

// wireMessage is a message as it arrives, every member kept raw so that
// absent, null and mistyped members can be told apart. Members of other
// names are collected in Other, to refuse case variants of these.
type wireMessage struct {
	JSONRPC jsontext.Value `json:"jsonrpc"`
	ID      jsontext.Value `json:"id"`
	Method  jsontext.Value `json:"method"`
	Params  jsontext.Value `json:"params"`
	Result  jsontext.Value `json:"result"`
	Error   jsontext.Value `json:"error"`
	Other   jsontext.Value `json:",unknown"`
}

// memberNames are the members of a JSON-RPC message.
var memberNames = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// decodeMessage parses one POST body. On failure it returns the error to
// send and the id to send it with (null when the id is unusable).
func decodeMessage(body []byte) (*request, json.RawMessage, *rpcError) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if rerr := syntaxError(jsontext.Value(trimmed).IsValid(), nil, body); rerr != nil {
			return nil, nullID, rerr
		}
		return nil, nullID, &rpcError{Code: codeInvalidRequest, Message: "Batches are not supported: send one JSON-RPC message per request."}
	}
	var w wireMessage
	if err := jsonv2.Unmarshal(body, &w); err != nil {
		if rerr := syntaxError(false, err, body); rerr != nil {
			return nil, nullID, rerr
		}
		return nil, nullID, &rpcError{Code: codeInvalidRequest, Message: "Invalid request: the body must be one JSON-RPC 2.0 object."}
	}
	if w.Other != nil {
		if rerr := caseVariant(w.Other); rerr != nil {
			return nil, nullID, rerr
		}
	}
	id := json.RawMessage(w.ID)
	if w.Method == nil && string(id) == "null" && w.Error != nil && string(w.JSONRPC) == `"2.0"` {
		// The client's error response to a message whose id it could not
		// read (JSON-RPC 2.0 §5): a response, so 202.
		return &request{ID: id, isResponse: true}, nil, nil
	}
	if id != nil && !validID(id) {
		return nil, nullID, &rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf("Invalid request: id must be a string of at most %d bytes or an integer from -%d to %d.", maxIDBytes-2, maxIDInt, maxIDInt)}
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
	if err := jsonv2.Unmarshal(w.Method, &method); err != nil || method == "" {
		return nil, replyID, &rpcError{Code: codeInvalidRequest, Message: `Invalid request: "method" must be a non-empty string.`}
	}
	params := json.RawMessage(w.Params)
	if string(params) == "null" {
		params = nil
	}
	if params != nil && params[0] != '{' {
		return nil, replyID, &rpcError{Code: codeInvalidParams, Message: `Invalid params: "params" must be an object.`}
	}
	return &request{ID: id, Method: method, Params: params}, nil, nil
}

// syntaxError is the error for a body that is not acceptable JSON text,
// given whether it was found valid or the decoding error, or nil when the
// body is JSON. A repeated member name is an invalid request; anything
// else wrong with the text is a parse error.
func syntaxError(valid bool, err error, body []byte) *rpcError {
	var serr *jsontext.SyntacticError
	if valid || (err != nil && !errors.As(err, &serr)) {
		return nil
	}
	switch {
	case !utf8.Valid(body):
		return &rpcError{Code: codeParseError, Message: "Parse error: the body is not valid UTF-8."}
	case serr != nil && serr.Err == jsontext.ErrDuplicateName:
		return &rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf("Invalid request: the member at %s appears more than once; member names must be unique.", serr.JSONPointer)}
	case err == nil:
		// Only IsValid was asked: ask the decoder which rule broke.
		var v jsontext.Value
		return syntaxError(false, jsonv2.Unmarshal(body, &v), body)
	}
	return &rpcError{Code: codeParseError, Message: "Parse error: the body is not valid JSON."}
}

// caseVariant refuses a top-level member whose name is a JSON-RPC member's
// in other letter case ("METHOD", "Id"): members match exactly, and a
// reader that matched loosely would see another message.
func caseVariant(other jsontext.Value) *rpcError {
	var members map[string]jsontext.Value
	if jsonv2.Unmarshal(other, &members) != nil {
		return nil
	}
	for name := range members {
		for _, known := range memberNames {
			if strings.EqualFold(name, known) {
				return &rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf("Invalid request: member %q is not %q; member names are case-sensitive.", name, known)}
			}
		}
	}
	return nil
}

// validID reports whether a raw id is a string of at most maxIDBytes bytes
// or an integer within ±maxIDInt. Null is excluded: MCP forbids null
// request ids; so are fractions and exponents, which JSON-RPC 2.0 advises
// against and which do not round-trip through every client.
func validID(raw json.RawMessage) bool {
	switch c := raw[0]; {
	case c == '"':
		return len(raw) <= maxIDBytes
	case c == '-' || (c >= '0' && c <= '9'):
		if len(raw) > maxIDIntChars {
			return false
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		return err == nil && n >= -maxIDInt && n <= maxIDInt
	}
	return false
}

// decodeParams decodes a request's params into dst, member names matched
// exactly, reporting -32602 when they do not fit. Absent params decode as
// an empty object.
func decodeParams(params json.RawMessage, dst any) *rpcError {
	if params == nil {
		return nil
	}
	if err := jsonv2.Unmarshal(params, dst); err != nil {
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
