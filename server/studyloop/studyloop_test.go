package studyloop

import (
	"errors"
	"fmt"
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
