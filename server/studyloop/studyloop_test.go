package studyloop

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestErrorCodeAndMessage(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantCode string
		wantMsg  string
	}{
		{"nil", nil, "", ""},
		{"domain", Errorf(ENOTFOUND, "study %d not found", 7), ENOTFOUND, "study 7 not found"},
		{"wrapped", fmt.Errorf("ctx: %w", Errorf(EINVALID, "bad")), EINVALID, "bad"},
		{"other", errors.New("disk on fire"), EINTERNAL, "Internal error."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ErrorCode(tt.err); got != tt.wantCode {
				t.Errorf("ErrorCode=%q, want %q", got, tt.wantCode)
			}
			if got := ErrorMessage(tt.err); got != tt.wantMsg {
				t.Errorf("ErrorMessage=%q, want %q", got, tt.wantMsg)
			}
		})
	}
}

func TestStudyStatusValid(t *testing.T) {
	for _, s := range []StudyStatus{StatusUploaded, StatusProcessing, StatusReady, StatusFailed} {
		if !s.Valid() {
			t.Errorf("%q not valid", s)
		}
	}
	for _, s := range []StudyStatus{"", "done", "READY"} {
		if s.Valid() {
			t.Errorf("%q valid", s)
		}
	}
}

// TestErrorFields: validation errors name the form field they are about;
// InField copies, so errors shared by many callers keep no field.
func TestErrorFields(t *testing.T) {
	_, titleErr := StudyTitle(strings.Repeat("t", MaxStudyTitleChars+1), "text")
	shared := Errorf(EINVALID, "The PDF is damaged.")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"empty text", ValidateStudyText(" "), "text"},
		{"text too long", ValidateStudyText(strings.Repeat("a", MaxStudyTextChars+1)), "text"},
		{"title too long", titleErr, "title"},
		{"InField", InField(shared, "pdf"), "pdf"},
		{"the shared error itself", shared, ""},
		{"not an *Error", InField(errors.New("disk on fire"), "pdf"), ""},
		{"nil", InField(nil, "pdf"), ""},
	}
	for _, tt := range tests {
		if got := ErrorField(tt.err); got != tt.want {
			t.Errorf("%s: field %q, want %q", tt.name, got, tt.want)
		}
	}
	if InField(nil, "pdf") != nil {
		t.Error("InField(nil) is not nil")
	}
}

func TestQuestionNamedBy(t *testing.T) {
	tests := []struct {
		title string
		q     Question
		want  bool
	}{
		{"Afterload", Question{Answer: "afterload"}, true},
		{"Atrial Systole and Diastole", Question{Answer: "diastole"}, true},
		{"Cardiac Output", Question{Answer: "stroke volume", Alternatives: []string{"SV"}}, false},
		{"Heart Rates", Question{Answer: "HR", Alternatives: []string{"heart rate"}}, true},
		{"Ribosomes", Question{Answer: "tRNA"}, false},
		{"Termination", Question{Answer: "termination of translation"}, true},
		{"The Railways", Question{Answer: "railway"}, true},
		{"Elongation and Termination", Question{Answer: "termination of translation"}, true},
		{"Initiation", Question{Answer: "initiation factors"}, true},
		{"Gas Pressure", Question{Answer: "barometer"}, false},
		{"Pressure", Question{Answer: "press"}, true},
		{"Pressure", Question{Answer: "pump"}, false},
		{"Natural Monopoly", Question{Answer: "Natural monopolies"}, true},
		{"9.1 How Monopolies Form: Barriers to Entry", Question{Answer: "monopoly"}, true},
		{"The Whig Opposition", Question{Answer: "Whig Party"}, true},
		{"The Whig Opposition", Question{Answer: "Henry Clay"}, false},
		{"Cardiac Cycle", Question{Answer: "cardiac output"}, true},
		{"The Adaptive Immune Response", Question{Answer: "adaptive immunity"}, true},
		{"The Inflammatory Response", Question{Answer: "Inflammation"}, true},
		{"Federal Action under Hoover", Question{Answer: "Hoovervilles"}, true},
		{"Liquidity and the Definition of Money", Question{Answer: "liquid"}, true},
		{"Liquidity and the Definition of Money", Question{Answer: "bank run"}, false},
		{"X", Question{Answer: "XML"}, true},
		{"X", Question{Answer: "YAML"}, false},
		{"Connection Pooling", Question{Answer: "pool"}, true},
		{"Testing with MockTransport", Question{Answer: "transport"}, true},
		{"The r/K Selection Model", Question{Answer: "K-selection"}, true},
		{"Cell Division", Question{Answer: "cellulose"}, false},
		{"Heart Muscle", Question{Answer: "ventricular muscle"}, true},
	}
	for _, tt := range tests {
		if got := tt.q.NamedBy(tt.title); got != tt.want {
			t.Errorf("NamedBy(%q) of %q = %v, want %v", tt.title, tt.q.Answer, got, tt.want)
		}
	}
}
