package extract

import (
	"slices"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/studyloop"
)

func TestParsePages(t *testing.T) {
	tests := []struct {
		selection string
		count     int
		want      []int
		err       string // part of the error message; "" means no error
	}{
		{"", 3, []int{1, 2, 3}, ""},
		{"   ", 2, []int{1, 2}, ""},
		{"3-7, 10", 12, []int{3, 4, 5, 6, 7, 10}, ""},
		{"10, 3-7", 12, []int{3, 4, 5, 6, 7, 10}, ""},
		{"2,2, 1-3", 5, []int{1, 2, 3}, ""},
		{" 4 - 5 ", 5, []int{4, 5}, ""},
		{"4–5", 5, []int{4, 5}, ""},
		{"1,,2,", 5, []int{1, 2}, ""},
		{"7", 7, []int{7}, ""},
		{"8", 7, nil, "Page 8 is outside the document: the PDF has 7 pages."},
		{"1-9", 1, nil, "Page 9 is outside the document: the PDF has 1 page."},
		{"0", 7, nil, "Page 0 does not exist: pages are numbered from 1."},
		{"0-3", 7, nil, "Page 0 does not exist"},
		{"-3", 7, nil, `"-3" in the page selection is not a page number or range`},
		{"3-", 7, nil, `"3-" in the page selection is not a page number or range`},
		{"1-2-3", 7, nil, `"1-2-3" in the page selection is not a page number`},
		{"five", 7, nil, `"five" in the page selection is not a page number`},
		{"+2", 7, nil, `"+2" in the page selection is not a page number`},
		{"99999999999999999999", 7, nil, "is not a page number"},
		{"7-3", 9, nil, `The page range "7-3" runs backwards; write 3-7.`},
		{",", 9, nil, "names no pages"},
		{"", 0, nil, "The PDF has no pages."},
		{"", 201, nil, "The PDF has 201 pages; choose at most 200, for example 1-200."},
		{"1-201", 500, nil, "201 pages are selected; at most 200 pages"},
		{"1-150, 200-300", 500, nil, "pages are selected; at most 200 pages"},
		{"1-200", 500, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.selection, func(t *testing.T) {
			got, err := ParsePages(tt.selection, tt.count)
			if tt.err != "" {
				if msg := studyloop.ErrorMessage(err); !strings.Contains(msg, tt.err) {
					t.Fatalf("ParsePages(%q, %d) error %q, want it to say %q", tt.selection, tt.count, msg, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParsePages(%q, %d): %v", tt.selection, tt.count, err)
			}
			if tt.want != nil && !slices.Equal(got, tt.want) {
				t.Fatalf("ParsePages(%q, %d)=%v, want %v", tt.selection, tt.count, got, tt.want)
			}
			if len(got) > MaxPDFPages {
				t.Fatalf("%d pages selected, over the limit", len(got))
			}
		})
	}
}

func TestFormatPages(t *testing.T) {
	tests := []struct {
		pages []int
		want  string
	}{
		{nil, ""},
		{[]int{4}, "4"},
		{[]int{3, 4, 5, 7}, "3-5, 7"},
		{[]int{1, 3, 5}, "1, 3, 5"},
		{[]int{1, 2, 10, 11, 12}, "1-2, 10-12"},
	}
	for _, tt := range tests {
		if got := FormatPages(tt.pages); got != tt.want {
			t.Errorf("FormatPages(%v)=%q, want %q", tt.pages, got, tt.want)
		}
		if len(tt.pages) > 0 {
			back, err := ParsePages(FormatPages(tt.pages), 20)
			if err != nil || !slices.Equal(back, tt.pages) {
				t.Errorf("ParsePages(FormatPages(%v))=%v, %v", tt.pages, back, err)
			}
		}
	}
}
