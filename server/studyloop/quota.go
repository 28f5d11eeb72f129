package studyloop

import (
	"fmt"
	"time"
)

// EQUOTA is the code of an error saying an account has used up one of its
// Quotas; the message says which and when to try again.
const EQUOTA = "quota"

// Quotas bound what one account may store and queue, so that one account
// cannot fill the database or the processing queue for everyone. A zero
// field sets no limit.
type Quotas struct {
	StudiesPerHour    int   // studies created in any 60 minutes
	StudiesPerDay     int   // studies created in any 24 hours
	StoredChars       int   // characters of study text held at once
	UploadFilesPerDay int   // files uploaded in any 24 hours
	UploadPagesPerDay int   // PDF pages and photos to read in any 24 hours
	UploadBytesPerDay int64 // bytes uploaded in any 24 hours
}

// UploadUsage is what one upload, or a day's uploads, add up to.
type UploadUsage struct {
	Files int
	Pages int
	Bytes int64
}

// Usage of an upload: its files, the pages to read (Upload.PageCount) and
// its bytes.
func Usage(uploads []Upload) UploadUsage {
	var u UploadUsage
	for _, up := range uploads {
		u.Files++
		u.Pages += up.PageCount
		u.Bytes += int64(len(up.Data))
	}
	return u
}

// QuotaError is the error for a study refused because the account is over
// one of its Quotas. Nothing was stored. RetryAt is when the study would
// be accepted, the zero time when waiting will not help (stored text).
type QuotaError struct {
	Message string
	RetryAt time.Time
}

// Error implements error; the message is safe to show.
func (e *QuotaError) Error() string { return e.Message }

// Unwrap makes a QuotaError an *Error with code EQUOTA for ErrorCode and
// ErrorMessage.
func (e *QuotaError) Unwrap() error { return &Error{Code: EQUOTA, Message: e.Message} }

// RetryLater is the QuotaError for a quota over a time window: reason is
// a sentence saying which quota is reached, retryAt when the study would
// be accepted; now makes the wait.
func RetryLater(reason string, retryAt, now time.Time) *QuotaError {
	return &QuotaError{
		Message: fmt.Sprintf("Quota reached: %s Try again in %s (at %s). Nothing was stored.",
			reason, Wait(retryAt.Sub(now)), retryAt.UTC().Format("15:04 UTC")),
		RetryAt: retryAt,
	}
}

// OverStorage is the QuotaError for the stored-text quota: waiting does not
// help, only deleting studies.
func OverStorage(stored, adding, limit int) *QuotaError {
	return &QuotaError{Message: fmt.Sprintf(
		"Quota reached: this account holds %s characters of study text, and %s more would pass its limit of %s. Delete studies you no longer need, then try again. Nothing was stored.",
		Commas(stored), Commas(adding), Commas(limit))}
}
