package extract

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/studyloop/studyloop/server/studyloop"
)

// ParsePages reads a page selection such as "3-7, 10" for a document of
// pageCount pages and returns the chosen page numbers in ascending order,
// each once. Blank means every page. Items are separated by commas; a
// range is two page numbers joined by a hyphen or an en dash. Errors say
// in plain words what is wrong, and more than MaxPDFPages pages is one.
func ParsePages(selection string, pageCount int) ([]int, error) {
	if pageCount <= 0 {
		return nil, studyloop.Errorf(studyloop.EINVALID, "The PDF has no pages.")
	}
	selection = strings.TrimSpace(selection)
	if selection == "" {
		if pageCount > MaxPDFPages {
			return nil, studyloop.Errorf(studyloop.ETOOLARGE, "The PDF has %s pages; choose at most %d, for example 1-%d.", studyloop.Commas(pageCount), MaxPDFPages, MaxPDFPages)
		}
		pages := make([]int, pageCount)
		for i := range pages {
			pages[i] = i + 1
		}
		return pages, nil
	}
	chosen := map[int]bool{}
	for item := range strings.SplitSeq(selection, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		first, last, err := parsePageItem(item)
		if err != nil {
			return nil, err
		}
		for _, p := range []int{first, last} {
			if p > pageCount {
				return nil, studyloop.Errorf(studyloop.EINVALID, "Page %d is outside the document: the PDF has %s %s.", p, studyloop.Commas(pageCount), plural(pageCount, "page", "pages"))
			}
		}
		if last-first+1 > MaxPDFPages {
			return nil, tooManyPages(last - first + 1)
		}
		for p := first; p <= last; p++ {
			chosen[p] = true
		}
		if len(chosen) > MaxPDFPages {
			return nil, tooManyPages(len(chosen))
		}
	}
	if len(chosen) == 0 {
		return nil, studyloop.Errorf(studyloop.EINVALID, "The page selection %q names no pages; write pages like 3-7, 10.", selection)
	}
	pages := make([]int, 0, len(chosen))
	for p := range chosen {
		pages = append(pages, p)
	}
	slices.Sort(pages)
	return pages, nil
}

// parsePageItem reads "7" or "3-7".
func parsePageItem(item string) (first, last int, err error) {
	item = strings.ReplaceAll(item, "–", "-")
	a, b, isRange := strings.Cut(item, "-")
	if first, err = parsePageNumber(a, item); err != nil {
		return 0, 0, err
	}
	if !isRange {
		return first, first, nil
	}
	if last, err = parsePageNumber(b, item); err != nil {
		return 0, 0, err
	}
	if last < first {
		return 0, 0, studyloop.Errorf(studyloop.EINVALID, "The page range %q runs backwards; write %d-%d.", item, last, first)
	}
	return first, last, nil
}

func parsePageNumber(s, item string) (int, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.Atoi(s)
	if err != nil || strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-") {
		return 0, studyloop.Errorf(studyloop.EINVALID, "%q in the page selection is not a page number or range; write pages like 3-7, 10.", item)
	}
	if n < 1 {
		return 0, studyloop.Errorf(studyloop.EINVALID, "Page %d does not exist: pages are numbered from 1.", n)
	}
	return n, nil
}

func tooManyPages(n int) error {
	return studyloop.Errorf(studyloop.ETOOLARGE, "%s pages are selected; at most %d pages can be used from one PDF.", studyloop.Commas(n), MaxPDFPages)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// FormatPages writes pages (ascending) back as a compact selection:
// [3 4 5 7] -> "3-5, 7".
func FormatPages(pages []int) string {
	var b strings.Builder
	for i := 0; i < len(pages); {
		j := i
		for j+1 < len(pages) && pages[j+1] == pages[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		if j == i {
			fmt.Fprintf(&b, "%d", pages[i])
		} else {
			fmt.Fprintf(&b, "%d-%d", pages[i], pages[j])
		}
		i = j + 1
	}
	return b.String()
}
