package store_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// backdate moves a study's creation into the past.
func backdate(t *testing.T, db *store.DB, id string, ago time.Duration) time.Time {
	t.Helper()
	at := time.Now().Add(-ago).UTC().Truncate(time.Microsecond)
	if _, err := db.NewUpdate().Table("studies").Set("created_at = ?", at).Where("id = ?", id).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	return at
}

// userState is what a refusal must leave as it was: the user's studies
// and their texts.
func userState(t *testing.T, db *store.DB, user int64) string {
	t.Helper()
	var rows []struct {
		ID    string `bun:"id"`
		Text  string `bun:"text"`
		Chars int    `bun:"chars"`
	}
	if err := db.NewSelect().Table("studies").Column("id", "text", "chars").Where("user_id = ?", user).Order("id").Scan(t.Context(), &rows); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.ID + ":" + r.Text + ";")
	}
	return b.String()
}

// mustRefuse checks that err is a quota refusal whose message holds want
// and that nothing of the user's changed.
func mustRefuse(t *testing.T, db *store.DB, user int64, before string, err error, want string) *studyloop.QuotaError {
	t.Helper()
	var q *studyloop.QuotaError
	if !errors.As(err, &q) || studyloop.ErrorCode(err) != studyloop.EQUOTA {
		t.Fatalf("err = %v, want a quota error", err)
	}
	if msg := studyloop.ErrorMessage(err); !strings.Contains(msg, want) || !strings.HasSuffix(msg, "Nothing was stored.") {
		t.Fatalf("message %q, want it to contain %q and end saying nothing was stored", msg, want)
	}
	if after := userState(t, db, user); after != before {
		t.Fatal("a refused study changed the account's studies")
	}
	return q
}

func TestStudyRateQuotas(t *testing.T) {
	tests := []struct {
		name   string
		quotas studyloop.Quotas
		window time.Duration
		words  string
	}{
		{"per hour", studyloop.Quotas{StudiesPerHour: 3}, time.Hour, "3 studies were created in the last hour"},
		{"per day", studyloop.Quotas{StudiesPerHour: 100, StudiesPerDay: 3}, 24 * time.Hour, "3 studies were created in the last 24 hours"},
	}
	storetest.Each(t, func(t *testing.T, base *store.DB) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				db := base.WithQuotas(tt.quotas)
				ctx := t.Context()
				user, other := storetest.User(t, db), storetest.User(t, db)
				var ids []string
				for i := range 3 { // the third is the last allowed
					st, err := db.CreateStudy(ctx, user, "", "Cells are the units of life.")
					if err != nil {
						t.Fatalf("study %d: %v", i+1, err)
					}
					ids = append(ids, st.ID)
				}
				oldest := backdate(t, db, ids[0], tt.window-10*time.Minute)
				before := userState(t, db, user)
				_, err := db.CreateStudy(ctx, user, "", "The fourth is refused.")
				q := mustRefuse(t, db, user, before, err, tt.words)
				if want := oldest.Add(tt.window); !q.RetryAt.Equal(want) {
					t.Errorf("RetryAt %v, want %v (when the oldest leaves the window)", q.RetryAt, want)
				}
				if msg := studyloop.ErrorMessage(err); !strings.Contains(msg, "Try again in 10 minutes") {
					t.Errorf("message %q does not say when to retry", msg)
				}
				// Another account is not affected.
				if _, err := db.CreateStudy(ctx, other, "", "Another student's notes."); err != nil {
					t.Fatalf("another account: %v", err)
				}
				// Once the oldest has left the window, one more fits.
				backdate(t, db, ids[0], tt.window+time.Second)
				if _, err := db.CreateStudy(ctx, user, "", "Now it fits."); err != nil {
					t.Fatalf("after the window: %v", err)
				}
				if _, err := db.CreateUploadStudy(ctx, user, "", []studyloop.Upload{{Kind: "jpeg", PageCount: 1, Data: []byte("\xff\xd8\xff")}}); studyloop.ErrorCode(err) != studyloop.EQUOTA {
					t.Fatalf("an upload over the study quota: %v, want a quota error", err)
				}
			})
		}
	})
}

func TestStoredTextQuota(t *testing.T) {
	storetest.Each(t, func(t *testing.T, base *store.DB) {
		db := base.WithQuotas(studyloop.Quotas{StoredChars: 100})
		ctx := t.Context()
		user := storetest.User(t, db)
		if _, err := db.CreateStudy(ctx, user, "", strings.Repeat("é", 60)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateStudy(ctx, user, "", strings.Repeat("a", 40)); err != nil { // exactly 100: the last allowed
			t.Fatalf("reaching the quota exactly: %v", err)
		}
		before := userState(t, db, user)
		_, err := db.CreateStudy(ctx, user, "", "b")
		q := mustRefuse(t, db, user, before, err, "this account holds 100 characters of study text, and 1 more would pass its limit of 100")
		if !q.RetryAt.IsZero() {
			t.Errorf("RetryAt %v: waiting does not free stored text", q.RetryAt)
		}
		_, err = db.CreateUploadStudy(ctx, user, "", []studyloop.Upload{{Kind: "jpeg", PageCount: 1, Data: []byte("\xff\xd8\xff")}})
		mustRefuse(t, db, user, before, err, "holds 100 characters")
		// Unlimited storage knows no such quota.
		if _, err := base.CreateStudy(ctx, user, "", "b"); err != nil {
			t.Fatal(err)
		}
	})
}

func TestUploadQuotas(t *testing.T) {
	photo := func(n int) studyloop.Upload {
		return studyloop.Upload{Kind: "jpeg", PageCount: 1, Data: make([]byte, n)}
	}
	pdf := func(pages, n int) studyloop.Upload {
		return studyloop.Upload{Kind: "pdf", PageCount: pages, Data: make([]byte, n)}
	}
	tests := []struct {
		name    string
		quotas  studyloop.Quotas
		allowed [][]studyloop.Upload // made in turn, the last reaching the quota
		refused []studyloop.Upload
		message string
	}{
		{"files", studyloop.Quotas{UploadFilesPerDay: 3},
			[][]studyloop.Upload{{photo(1), photo(1)}, {photo(1)}}, []studyloop.Upload{photo(1)},
			"this upload would pass the 3 files a day"},
		{"pages", studyloop.Quotas{UploadPagesPerDay: 10},
			[][]studyloop.Upload{{pdf(6, 1)}, {pdf(3, 1), photo(1)}}, []studyloop.Upload{photo(1)},
			"this upload would pass the 10 pages and photos a day"},
		{"bytes", studyloop.Quotas{UploadBytesPerDay: 2 << 20},
			[][]studyloop.Upload{{pdf(1, 1<<20)}, {photo(1 << 20)}}, []studyloop.Upload{photo(1)},
			"this upload would pass the 2 MiB a day"},
		{"one upload over the daily quota", studyloop.Quotas{UploadPagesPerDay: 10},
			nil, []studyloop.Upload{pdf(11, 1)},
			"This upload alone is more than the 10 pages and photos a day"},
	}
	storetest.Each(t, func(t *testing.T, base *store.DB) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				db := base.WithQuotas(tt.quotas)
				ctx := t.Context()
				user := storetest.User(t, db)
				var first string
				for i, up := range tt.allowed {
					st, err := db.CreateUploadStudy(ctx, user, "", up)
					if err != nil {
						t.Fatalf("upload %d: %v", i+1, err)
					}
					if i == 0 {
						first = st.ID
					}
				}
				// Pasted text does not count against upload quotas.
				if _, err := db.CreateStudy(ctx, user, "", "Pasted notes."); err != nil {
					t.Fatal(err)
				}
				before := userState(t, db, user)
				_, err := db.CreateUploadStudy(ctx, user, "", tt.refused)
				q := mustRefuse(t, db, user, before, err, tt.message)
				if first == "" {
					if !q.RetryAt.IsZero() {
						t.Errorf("RetryAt %v for an upload that never fits", q.RetryAt)
					}
					return
				}
				oldest := backdate(t, db, first, 23*time.Hour)
				_, err = db.CreateUploadStudy(ctx, user, "", tt.refused)
				q = mustRefuse(t, db, user, userState(t, db, user), err, "Try again in 60 minutes")
				if want := oldest.Add(24 * time.Hour); !q.RetryAt.Equal(want) {
					t.Errorf("RetryAt %v, want %v", q.RetryAt, want)
				}
				backdate(t, db, first, 24*time.Hour+time.Second)
				if _, err := db.CreateUploadStudy(ctx, user, "", tt.refused); err != nil {
					t.Fatalf("after the first upload left the day: %v", err)
				}
			})
		}
	})
}

// TestQuotaUnderConcurrency: creations racing for the last places of a
// quota are counted one after the other, so exactly the quota succeeds.
func TestQuotaUnderConcurrency(t *testing.T) {
	storetest.Each(t, func(t *testing.T, base *store.DB) {
		db := base.WithQuotas(studyloop.Quotas{StudiesPerHour: 3})
		user := storetest.User(t, db)
		errs := make(chan error, 12)
		for range 12 {
			go func() {
				_, err := db.CreateStudy(t.Context(), user, "", "Racing for the quota.")
				errs <- err
			}()
		}
		created := 0
		for range 12 {
			switch err := <-errs; studyloop.ErrorCode(err) {
			case "":
				created++
			case studyloop.EQUOTA:
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}
		if created != 3 {
			t.Fatalf("%d studies created, want 3", created)
		}
	})
}
