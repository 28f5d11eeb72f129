package studyloop

// SourcePart is one piece of uploaded material, a PDF page or a photo, and
// the bytes of the study text that were extracted from it. A study made
// from uploads keeps its parts, so each topic can say where it came from.
type SourcePart struct {
	Label string // what a person calls it: "Page 3", "Photo 2"
	Span  Span   // its bytes in the study text, heading line included
}

// SourceLabels returns the labels of the parts that overlap s, in order.
// An empty span counts as overlapping the part it lies in.
func SourceLabels(parts []SourcePart, s Span) []string {
	var labels []string
	for _, p := range parts {
		overlaps := s.Start < p.Span.End && p.Span.Start < s.End
		inside := s.Start == s.End && p.Span.Start <= s.Start && s.Start < p.Span.End
		if overlaps || inside {
			labels = append(labels, p.Label)
		}
	}
	return labels
}

// Upload is one file of study material as uploaded, kept with its study
// until its text has been extracted.
type Upload struct {
	Kind  string // what the content is: "pdf", "jpeg", "png" or "heic"
	Pages string // PDFs: the page selection, e.g. "3-7, 10"; "" for all
	// PageCount is how many pages the file is read as: the selected pages
	// of a PDF, 1 for a photo. It counts against the upload quota and is
	// the total of the study's progress.
	PageCount int
	Data      []byte
}
