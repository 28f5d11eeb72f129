package mcp

// The four tools (spec 2025-11-25, server/tools.mdx). Input and output
// schemas are inferred from the Go types below, descriptions from their
// jsonschema tags; arguments are validated against the input schema.
// Everything wrong with a call's arguments (a missing field, a wrong type,
// text over the limit, an unknown study) is a tool error (isError true)
// that the agent can read and act on; only an unknown tool name or
// malformed params are JSON-RPC errors (-32602).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/studyloop"
)

// tool is one tool: its definition, its resolved input schema and its
// handler, which returns the structured result or a message for a tool
// error.
type tool struct {
	def   *sdk.Tool
	input *jsonschema.Resolved
	call  func(ctx context.Context, userID int64, args json.RawMessage) (any, error)
}

// toolError is a failure the agent should read: it becomes a result with
// isError true carrying the message.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

func toolErrorf(format string, args ...any) error {
	return &toolError{msg: fmt.Sprintf(format, args...)}
}

// Tool inputs and outputs. Field tags give the JSON names; jsonschema tags
// give the property descriptions agents read.

type createStudyInput struct {
	Text  string `json:"text" jsonschema:"The study material: plain text or markdown, from 1 to 400,000 characters (Unicode characters, not bytes). Send the whole text; nothing is truncated."`
	Title string `json:"title,omitempty" jsonschema:"Optional title of at most 200 characters; when omitted one is made from the first line of the text."`
}

type createStudyOutput struct {
	StudyID string `json:"study_id" jsonschema:"The new study's id; pass it to get_study_status and get_mastery."`
	Status  string `json:"status" jsonschema:"The study's status: uploaded until a worker starts processing it."`
}

type studyIDInput struct {
	StudyID string `json:"study_id" jsonschema:"A study id as returned by create_study or list_studies, such as st_..."`
}

type studyOutput struct {
	StudyID       string          `json:"study_id" jsonschema:"The study's id."`
	Status        string          `json:"status" jsonschema:"uploaded or processing (not ready yet), ready (questions exist) or failed (processing did not finish)."`
	Title         string          `json:"title" jsonschema:"The study's title."`
	CreatedAt     string          `json:"created_at" jsonschema:"When the study was created (RFC 3339, UTC)."`
	TopicCount    *int            `json:"topic_count,omitempty" jsonschema:"How many topics were found; present once the study is ready."`
	QuestionCount *int            `json:"question_count,omitempty" jsonschema:"How many practice questions were made; present once the study is ready."`
	Reason        string          `json:"reason,omitempty" jsonschema:"Why processing failed; present when the status is failed."`
	Progress      *progressOutput `json:"progress,omitempty" jsonschema:"How far the reading of a study made from uploaded PDF pages or photos has come; present while such a study is uploaded or processing."`
}

type progressOutput struct {
	PagesDone  int `json:"pages_done" jsonschema:"PDF pages and photos read so far."`
	PagesTotal int `json:"pages_total" jsonschema:"PDF pages and photos to read."`
}

type listStudiesInput struct {
	Status string `json:"status,omitempty" jsonschema:"Only studies with this status: uploaded, processing, ready or failed. Omit for all."`
	Limit  int    `json:"limit,omitempty" jsonschema:"How many studies to return, 1 to 100; default 20."`
	Cursor string `json:"cursor,omitempty" jsonschema:"The next_cursor of a previous call, to get the following page; omit for the first page."`
}

type listStudiesOutput struct {
	Studies    []studyOutput `json:"studies" jsonschema:"The user's studies, newest first."`
	NextCursor string        `json:"next_cursor,omitempty" jsonschema:"Pass as cursor to get the next page; absent on the last page."`
}

type getMasteryInput struct {
	StudyID string `json:"study_id,omitempty" jsonschema:"A ready study's id for per-topic mastery; omit for a summary of every ready study."`
}

type masteryFigures struct {
	Score      float64 `json:"score" jsonschema:"Mastery from 0 (nothing known) to 1: the mean probability of recalling each question a week from now; unanswered questions count 0."`
	Attempts   int     `json:"attempts" jsonschema:"How many answers the student has given."`
	Questions  int     `json:"questions" jsonschema:"How many questions the score is taken over."`
	NextReview *string `json:"next_review" jsonschema:"When the next question falls due for review (RFC 3339, UTC); null when nothing has been answered yet."`
}

type topicMasteryOutput struct {
	Topic string `json:"topic" jsonschema:"The topic's title."`
	masteryFigures
	CurrentStreak int `json:"current_streak" jsonschema:"The latest run of consecutive answers rated Hard or better to this topic's own questions (not its subtopics')."`
	BestStreak    int `json:"best_streak" jsonschema:"The longest such run."`
}

type studyMasteryOutput struct {
	StudyID string `json:"study_id" jsonschema:"The study's id."`
	Title   string `json:"title" jsonschema:"The study's title."`
	masteryFigures
	Topics []topicMasteryOutput `json:"topics,omitempty" jsonschema:"Per-topic mastery, in the order of the study; present when a study_id was given. A topic's score, attempts, questions and next_review cover its subtopics' questions as well as its own."`
}

type getMasteryOutput struct {
	Study   *studyMasteryOutput  `json:"study,omitempty" jsonschema:"With study_id: the study's mastery and its topics."`
	Overall *masteryFigures      `json:"overall,omitempty" jsonschema:"Without study_id: mastery across every ready study, weighted by question count."`
	Studies []studyMasteryOutput `json:"studies,omitempty" jsonschema:"Without study_id: each ready study's mastery, newest first."`
}

// newTools defines the four tools.
func (s *Server) newTools() ([]*tool, error) {
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	specs := []struct {
		def  sdk.Tool
		in   func(*jsonschema.ForOptions) (*jsonschema.Schema, error)
		out  func(*jsonschema.ForOptions) (*jsonschema.Schema, error)
		tune func(in, out *jsonschema.Schema)
		// advertise adds to the published input schema constraints that
		// the tool checks itself, to give a more useful message than the
		// schema validator would.
		advertise func(in *jsonschema.Schema)
		call      func(ctx context.Context, userID int64, args json.RawMessage) (any, error)
	}{
		{
			def: sdk.Tool{
				Name:  "create_study",
				Title: "Create a study",
				Description: "Create a study from the student's study material (plain text or markdown, 1 to 400,000 characters). " +
					"Studyloop extracts topics and generates practice questions; this takes about a minute. " +
					"Returns the study_id: poll get_study_status with it until the status is ready or failed.",
				Annotations: &sdk.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: new(false), IdempotentHint: false, OpenWorldHint: new(false)},
			},
			in:  jsonschema.For[createStudyInput],
			out: jsonschema.For[createStudyOutput],
			tune: func(in, out *jsonschema.Schema) {
				in.Properties["title"].MaxLength = new(studyloop.MaxStudyTitleChars)
				out.Properties["status"].Enum = statusEnum()
			},
			advertise: func(in *jsonschema.Schema) {
				in.Properties["text"].MinLength = new(1)
				in.Properties["text"].MaxLength = new(studyloop.MaxStudyTextChars)
			},
			call: s.createStudy,
		},
		{
			def: sdk.Tool{
				Name:  "get_study_status",
				Title: "Get a study's status",
				Description: "Report a study's processing status: uploaded or processing (not ready yet), ready (questions exist; counts included) " +
					"or failed (with the reason). Poll every few seconds after create_study.",
				Annotations: readOnly,
			},
			in:  jsonschema.For[studyIDInput],
			out: jsonschema.For[studyOutput],
			tune: func(in, out *jsonschema.Schema) {
				in.Properties["study_id"].MaxLength = new(maxStudyIDChars)
				out.Properties["status"].Enum = statusEnum()
			},
			call: s.getStudyStatus,
		},
		{
			def: sdk.Tool{
				Name:        "list_studies",
				Title:       "List studies",
				Description: "List the student's studies, newest first, optionally only those with one status. Pages of 1 to 100 (default 20); pass next_cursor back as cursor for the next page.",
				Annotations: readOnly,
			},
			in:  jsonschema.For[listStudiesInput],
			out: jsonschema.For[listStudiesOutput],
			tune: func(in, out *jsonschema.Schema) {
				in.Properties["status"].Enum = statusEnum()
				in.Properties["limit"].Minimum = new(1.0)
				in.Properties["limit"].Maximum = new(float64(studyloop.MaxStudyListLimit))
				in.Properties["cursor"].MaxLength = new(maxCursorChars)
				out.Properties["studies"].Items.Properties["status"].Enum = statusEnum()
			},
			call: s.listStudies,
		},
		{
			def: sdk.Tool{
				Name:  "get_mastery",
				Title: "Get mastery",
				Description: "Read how well the student knows their material. With study_id (a ready study): per-topic mastery with score 0 to 1, attempts, streaks and next review. " +
					"Without: a summary of every ready study and an overall figure.",
				Annotations: readOnly,
			},
			in:  jsonschema.For[getMasteryInput],
			out: jsonschema.For[getMasteryOutput],
			tune: func(in, out *jsonschema.Schema) {
				in.Properties["study_id"].MaxLength = new(maxStudyIDChars)
				for _, name := range []string{"study", "overall"} {
					// A pointer field is inferred as "object or null"; it is
					// simply absent when unused.
					out.Properties[name].Types = nil
					out.Properties[name].Type = "object"
				}
			},
			call: s.getMastery,
		},
	}
	tools := make([]*tool, len(specs))
	for i, spec := range specs {
		in, err := spec.in(nil)
		if err != nil {
			return nil, fmt.Errorf("mcp: %s input schema: %w", spec.def.Name, err)
		}
		out, err := spec.out(nil)
		if err != nil {
			return nil, fmt.Errorf("mcp: %s output schema: %w", spec.def.Name, err)
		}
		spec.tune(in, out)
		resolved, err := in.CloneSchemas().Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("mcp: %s input schema: %w", spec.def.Name, err)
		}
		if spec.advertise != nil {
			spec.advertise(in)
		}
		def := spec.def
		def.InputSchema = in
		def.OutputSchema = out
		tools[i] = &tool{def: &def, input: resolved, call: spec.call}
	}
	return tools, nil
}

// Bounds on identifiers an agent passes back; real ones are far shorter.
const (
	maxStudyIDChars = 64
	maxCursorChars  = 256
)

func statusEnum() []any {
	return []any{string(studyloop.StatusUploaded), string(studyloop.StatusProcessing), string(studyloop.StatusReady), string(studyloop.StatusFailed)}
}

// callParams are the params of tools/call.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// callTool answers tools/call.
func (s *Server) callTool(ctx context.Context, userID int64, params json.RawMessage) (any, *rpcError) {
	var p callParams
	if rerr := decodeParams(params, &p); rerr != nil {
		return nil, rerr
	}
	return s.call(ctx, userID, p)
}

// call calls the tool the decoded params name.
func (s *Server) call(ctx context.Context, userID int64, p callParams) (any, *rpcError) {
	t, ok := s.tools[p.Name]
	if !ok {
		return nil, &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf("Unknown tool %q; call tools/list for the four tools.", p.Name)}
	}
	args := p.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	var instance any
	if err := json.Unmarshal(args, &instance); err != nil {
		return errorResult(fmt.Sprintf("Invalid arguments: %v.", err)), nil
	}
	props, ok := instance.(map[string]any)
	if !ok {
		return errorResult("Invalid arguments: arguments must be a JSON object."), nil
	}
	// Many clients send null for an optional argument left out: it counts
	// as absent (a required one is then reported missing).
	for name, v := range props {
		if v == nil {
			delete(props, name)
		}
	}
	if err := t.input.Validate(instance); err != nil {
		return errorResult(fmt.Sprintf("Invalid arguments for %s: %v.", p.Name, err)), nil
	}
	out, err := t.call(ctx, userID, args)
	if err != nil {
		if te, ok := err.(*toolError); ok {
			return errorResult(te.msg), nil
		}
		s.logger.ErrorContext(ctx, "mcp: tool failed", "tool", p.Name, "err", err)
		return errorResult("Internal error: the request could not be completed. Try again shortly."), nil
	}
	result, ok := out.(encodedResult)
	if !ok {
		if result, err = encodeResult(out); err != nil {
			s.logger.ErrorContext(ctx, "mcp: encode tool result", "tool", p.Name, "err", err)
			return errorResult("Internal error: the result could not be encoded."), nil
		}
	}
	return json.RawMessage(result), nil
}

// encodedResult is a CallToolResult already encoded, as encodeResult
// makes it. A tool that returns one has it sent as it is.
type encodedResult []byte

// encodeResult encodes a CallToolResult carrying out both as structured
// content and as text content, the form the SDK's type marshals to, written
// out directly so the result is encoded once and never re-compacted.
func encodeResult(out any) (encodedResult, error) {
	data, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	text, err := json.Marshal(string(data))
	if err != nil {
		return nil, err
	}
	buf := make(encodedResult, 0, len(text)+len(data)+64)
	buf = append(buf, `{"content":[{"type":"text","text":`...)
	buf = append(buf, text...)
	buf = append(buf, `}],"structuredContent":`...)
	buf = append(buf, data...)
	return append(buf, '}'), nil
}

// errorResult is a tool error an agent can read.
func errorResult(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

// decodeArgs decodes validated arguments into a tool's input type.
func decodeArgs[T any](args json.RawMessage) (T, error) {
	var in T
	if err := json.Unmarshal(args, &in); err != nil {
		return in, toolErrorf("Invalid arguments: %v.", err)
	}
	return in, nil
}

// domainError is where /mcp maps domain error codes, by the status the
// other surfaces answer them with (respond.Status): the agent's own
// mistakes (4xx) become tool errors it can read, a missing study (404)
// read the same as another user's, and anything else stays an internal
// error, logged and answered generically.
func domainError(err error, studyID string) error {
	switch status := respond.StatusOf(err); {
	case status == http.StatusNotFound:
		return studyNotFound(studyID)
	case status < http.StatusInternalServerError:
		return &toolError{msg: studyloop.ErrorMessage(err)}
	}
	return err
}

func studyNotFound(id string) error {
	return toolErrorf("Study not found: no study with id %q exists for this account.", id)
}

func (s *Server) createStudy(ctx context.Context, userID int64, args json.RawMessage) (any, error) {
	in, err := decodeArgs[createStudyInput](args)
	if err != nil {
		return nil, err
	}
	if err := studyloop.ValidateStudyText(in.Text); err != nil {
		// A refusal for length states the limit and what was received;
		// the domain's over-limit message already does. Bad bytes (NUL,
		// invalid UTF-8) are named by the domain's message alone.
		msg := studyloop.ErrorMessage(err)
		if strings.TrimFunc(in.Text, unicode.IsSpace) == "" {
			msg += fmt.Sprintf(" The text must be 1 to %s characters, not all whitespace; received %s characters.",
				studyloop.Commas(studyloop.MaxStudyTextChars), studyloop.Commas(utf8.RuneCountInString(in.Text)))
		}
		return nil, toolErrorf("%s Nothing was stored.", msg)
	}
	study, err := s.store.CreateStudy(ctx, userID, in.Title, in.Text)
	if err != nil {
		return nil, domainError(err, "")
	}
	if s.notify != nil {
		s.notify()
	}
	return createStudyOutput{StudyID: study.ID, Status: string(study.Status)}, nil
}

func (s *Server) getStudyStatus(ctx context.Context, userID int64, args json.RawMessage) (any, error) {
	in, err := decodeArgs[studyIDInput](args)
	if err != nil {
		return nil, err
	}
	study, err := s.store.GetStudy(ctx, userID, in.StudyID)
	if err != nil {
		return nil, domainError(err, in.StudyID)
	}
	return newStudyOutput(study), nil
}

func newStudyOutput(st studyloop.Study) studyOutput {
	out := studyOutput{
		StudyID:   st.ID,
		Status:    string(st.Status),
		Title:     st.Title,
		CreatedAt: st.CreatedAt.UTC().Format(time.RFC3339),
	}
	switch st.Status {
	case studyloop.StatusReady:
		out.TopicCount, out.QuestionCount = new(st.TopicCount), new(st.QuestionCount)
	case studyloop.StatusFailed:
		out.Reason = st.Reason
	default:
		if st.PagesTotal > 0 {
			out.Progress = &progressOutput{PagesDone: st.PagesDone, PagesTotal: st.PagesTotal}
		}
	}
	return out
}

func (s *Server) listStudies(ctx context.Context, userID int64, args json.RawMessage) (any, error) {
	in, err := decodeArgs[listStudiesInput](args)
	if err != nil {
		return nil, err
	}
	studies, next, err := s.store.ListStudies(ctx, userID, studyloop.ListStudiesParams{
		Status: studyloop.StudyStatus(in.Status),
		Limit:  in.Limit,
		Cursor: in.Cursor,
	})
	if err != nil {
		return nil, domainError(err, "")
	}
	out := listStudiesOutput{Studies: make([]studyOutput, len(studies)), NextCursor: next}
	for i, st := range studies {
		out.Studies[i] = newStudyOutput(st)
	}
	return out, nil
}

func (s *Server) getMastery(ctx context.Context, userID int64, args json.RawMessage) (any, error) {
	in, err := decodeArgs[getMasteryInput](args)
	if err != nil {
		return nil, err
	}
	if in.StudyID == "" {
		sum, err := s.mastery.MasterySummary(ctx, userID, time.Now())
		if err != nil {
			return nil, domainError(err, "")
		}
		out := getMasteryOutput{Overall: new(newMasteryFigures(sum.MasteryFigures)), Studies: make([]studyMasteryOutput, len(sum.Studies))}
		for i, st := range sum.Studies {
			out.Studies[i] = studyMasteryOutput{StudyID: st.StudyID, Title: st.Title, masteryFigures: newMasteryFigures(st.MasteryFigures)}
		}
		return out, nil
	}
	result, err := s.mastery.RenderStudyMastery(ctx, userID, in.StudyID, time.Now(), s.masteryResult)
	if err != nil {
		return nil, domainError(err, in.StudyID)
	}
	return encodedResult(result), nil
}

// studyMasteryResult is the encoded get_mastery result of one study, made
// once per study, version and minute and kept in the study service's
// mastery cache (see study.Rendering). A study that is not ready has none.
func studyMasteryResult(m studyloop.StudyMastery) ([]byte, error) {
	if m.Status != studyloop.StatusReady {
		return nil, toolErrorf("Study %q is %s, not ready: mastery exists once its questions are ready. Poll get_study_status until the status is ready.", m.StudyID, m.Status)
	}
	study := &studyMasteryOutput{
		StudyID:        m.StudyID,
		Title:          m.Title,
		masteryFigures: newMasteryFigures(m.MasteryFigures),
		Topics:         make([]topicMasteryOutput, len(m.Topics)),
	}
	for i, t := range m.Topics {
		study.Topics[i] = topicMasteryOutput{
			Topic:          t.Title,
			masteryFigures: newMasteryFigures(t.MasteryFigures),
			CurrentStreak:  t.CurrentStreak,
			BestStreak:     t.BestStreak,
		}
	}
	return encodeResult(getMasteryOutput{Study: study})
}

func newMasteryFigures(f studyloop.MasteryFigures) masteryFigures {
	out := masteryFigures{Score: f.Score, Attempts: f.Attempts, Questions: f.Questions}
	if f.NextReview != nil {
		out.NextReview = new(f.NextReview.UTC().Format(time.RFC3339))
	}
	return out
}
