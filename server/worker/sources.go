package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/studyloop"
)

// errExtractTimeout is the cause with which a too-long extraction is
// cancelled.
var errExtractTimeout = errors.New("extraction timed out")

// extractUploads makes the text of a study created from uploaded files,
// when its claim has none yet: the selected pages of each PDF and the text
// of each photo, joined under headings that name them ("## Page 3",
// "## Photo 2"). It checks the study length limit, naming the pages or
// photos to drop, and stores the text and its parts under the lease, so a
// later claim, after a restart, starts from the text. A claim that has text
// is returned unchanged. Errors a person can act on are *studyloop.Error.
func (p *Pool) extractUploads(ctx context.Context, owner string, c store.Claim) (store.Claim, error) {
	if c.Text != "" {
		return c, nil
	}
	uploads, err := p.db.StudySources(ctx, c.Study.ID)
	if err != nil {
		return c, err
	}
	if len(uploads) == 0 {
		return c, fmt.Errorf("worker: study %s has neither text nor uploads", c.Study.ID)
	}
	ectx, cancel := context.WithTimeoutCause(ctx, p.opts.ExtractTimeout, errExtractTimeout)
	defer cancel()
	var parts []extract.Part
	photos := 0
	for _, u := range uploads {
		before := len(parts)
		progress := func(done int) { p.recordProgress(ctx, c.Study.ID, owner, before+done) }
		if extract.Kind(u.Kind) == extract.KindPDF {
			pages, err := p.extractor.PDFWithProgress(ectx, u.Data, u.Pages, progress)
			if err != nil {
				return c, p.extractError(ctx, ectx, err)
			}
			parts = append(parts, pages...)
			continue
		}
		photos++
		part, err := p.extractor.Photo(ectx, u.Data, extract.PhotoLabel(photos))
		if err != nil {
			return c, p.extractError(ctx, ectx, err)
		}
		parts = append(parts, part)
		progress(1)
	}
	text, spans := extract.Join(parts)
	if err := extract.CheckLength(text, spans); err != nil {
		return c, err
	}
	if err := p.db.SetStudyText(ctx, c.Study.ID, owner, text, spans); err != nil {
		if errors.Is(err, store.ErrLeaseLost) {
			return c, errLeaseLost
		}
		return c, err
	}
	c.Text = text
	return c, nil
}

// recordProgress stores how many pages and photos of the study are read.
// A failure is only logged: a lost lease ends the run through the
// heartbeat, and progress is shown, not relied on.
func (p *Pool) recordProgress(ctx context.Context, id, owner string, done int) {
	if err := p.db.SetPagesDone(ctx, id, owner, done); err != nil && ctx.Err() == nil {
		p.log.Warn("record study progress", "study", id, "err", err)
	}
}

// extractError tells a cancelled run (lease lost, shutdown) and the time
// bound from the extractor's own verdict.
func (p *Pool) extractError(ctx, ectx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case errors.Is(context.Cause(ectx), errExtractTimeout):
		return studyloop.Errorf(studyloop.EINVALID, "Reading the uploaded files took longer than %s and was stopped. Upload fewer pages or photos.", p.opts.ExtractTimeout)
	}
	return err
}
