package studyloop

import (
	"slices"
	"testing"
)

func TestSourceLabels(t *testing.T) {
	parts := []SourcePart{
		{Label: "Page 3", Span: Span{0, 100}},
		{Label: "Page 4", Span: Span{102, 200}},
		{Label: "Photo 1", Span: Span{202, 300}},
	}
	tests := []struct {
		span Span
		want []string
	}{
		{Span{10, 20}, []string{"Page 3"}},
		{Span{90, 150}, []string{"Page 3", "Page 4"}},
		{Span{0, 300}, []string{"Page 3", "Page 4", "Photo 1"}},
		{Span{100, 102}, nil}, // the gap between parts
		{Span{250, 250}, []string{"Photo 1"}},
		{Span{300, 310}, nil},
	}
	for _, tt := range tests {
		if got := SourceLabels(parts, tt.span); !slices.Equal(got, tt.want) {
			t.Errorf("SourceLabels(%v)=%v, want %v", tt.span, got, tt.want)
		}
	}
}
