package store_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// mustFullAccount stores an account with something in every table an
// account owns: an answered ready study, an upload study with its files
// and pages, a session, a password reset and an agent grant (code and
// tokens). It returns the user id and the OAuth client's id.
func mustFullAccount(tb testing.TB, db *store.DB, email string) (int64, string) {
	tb.Helper()
	ctx := context.Background()
	user := storetest.Student(tb, db, email)
	now := time.Now()
	_, qs := storetest.ReadyStudy(tb, db, user, "Cells of "+email, 2, 2)
	storetest.Answer(tb, db, user, qs[0].ID, fsrs.Good, now)
	st, err := db.CreateUploadStudy(ctx, user, "Handout", []studyloop.Upload{{Kind: "pdf", Data: []byte("%PDF-1.4 handout")}})
	if err != nil {
		tb.Fatal(err)
	}
	c := mustClaim(tb, db, "w", time.Minute)
	text := "## Page 1\n\nCells divide."
	if err := db.SetStudyText(ctx, st.ID, "w", text, []studyloop.SourcePart{{Label: "Page 1", Span: studyloop.Span{Start: 0, End: len(text)}}}); err != nil || c.Study.ID != st.ID {
		tb.Fatalf("set text of %s (claimed %s): %v", st.ID, c.Study.ID, err)
	}
	// A second upload, being read, keeps its file.
	if _, err := db.CreateUploadStudy(ctx, user, "Photos", []studyloop.Upload{{Kind: "jpeg", Data: []byte("\xff\xd8\xff photo")}}); err != nil {
		tb.Fatal(err)
	}
	mustClaim(tb, db, "w", time.Minute)
	if err := db.Sessions().CommitUserCtx(ctx, "session-"+email, user, time.Now(), []byte("x"), now.Add(time.Hour)); err != nil {
		tb.Fatal(err)
	}
	if err := db.CreatePasswordReset(ctx, user, "reset-"+email, now.Add(time.Hour)); err != nil {
		tb.Fatal(err)
	}
	client := &studyloop.OAuthClient{ID: "client-" + email, Name: "Agent", RedirectURIs: []string{"https://a.example/cb"}, CreatedAt: now}
	if err := db.CreateOAuthClient(ctx, client); err != nil {
		tb.Fatal(err)
	}
	u := &studyloop.User{ID: user}
	code := newCode(u, client, "code-"+email, time.Minute)
	if err := db.CreateAuthorizationCode(ctx, code); err != nil {
		tb.Fatal(err)
	}
	if err := db.RedeemAuthorizationCode(ctx, code.Hash, now, newToken(code, "at-"+email, studyloop.AccessToken), newToken(code, "rt-"+email, studyloop.RefreshToken)); err != nil {
		tb.Fatal(err)
	}
	return user, client.ID
}

// TestDeleteUserRemovesEveryRow: deleting an account leaves every table
// as it was before the account existed (its studies, topics, questions,
// files, pages, cards, answers, progress, sessions, resets, codes and
// tokens all gone), except the OAuth client the agent registered; the
// other student's rows all stay.
func TestDeleteUserRemovesEveryRow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		mustFullAccount(t, db, "bob@example.com")
		before := storetest.TableCounts(t, db)
		ann, clientID := mustFullAccount(t, db, "ann@example.com")
		during := storetest.TableCounts(t, db)
		var grew []string
		for table, n := range during {
			if n > before[table] {
				grew = append(grew, table)
			}
		}
		slices.Sort(grew)
		want := []string{"cards", "oauth_clients", "oauth_codes", "oauth_tokens", "password_resets", "questions", "review_logs", "sessions", "studies", "study_parts", "study_sources", "topic_progress", "topics", "users"}
		if missing := slices.DeleteFunc(slices.Clone(want), func(t string) bool { return slices.Contains(grew, t) }); len(missing) > 0 {
			t.Fatalf("the account holds nothing in %v; the test would not see them left behind", missing)
		}

		if err := db.DeleteUser(ctx, ann); err != nil {
			t.Fatal(err)
		}
		after := storetest.TableCounts(t, db)
		before["oauth_clients"]++ // the agent's registration is not the account's
		if !maps.Equal(after, before) {
			t.Fatalf("rows per table after deleting the account:\n%v\nwant as before it existed:\n%v", after, before)
		}
		if _, err := db.OAuthClient(ctx, clientID); err != nil {
			t.Fatalf("the agent's client: %v", err)
		}
		if err := db.DeleteUser(ctx, ann); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Fatalf("deleting it again: %v, want ENOTFOUND", err)
		}
	})
}

// TestSetPasswordEndsSessionsAndResets: a new password ends every session
// of the user (including one that was anonymous before the user signed in
// to it, and one stored again by a request under way) and spends open
// reset tokens, and leaves anonymous sessions and other users alone.
func TestSetPasswordEndsSessionsAndResets(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ann, bob := storetest.Student(t, db, "ann@example.com"), storetest.Student(t, db, "bob@example.com")
		later := time.Now().Add(time.Hour)
		for token, user := range map[string]int64{"ann-1": ann, "ann-2": ann, "bob": bob} {
			if err := db.Sessions().CommitUserCtx(ctx, token, user, time.Now(), []byte("x"), later); err != nil {
				t.Fatal(err)
			}
			if err := db.CreatePasswordReset(ctx, user, "reset-"+token, later); err != nil {
				t.Fatal(err)
			}
		}
		s := db.Sessions()
		if err := s.CommitUserCtx(ctx, "anonymous", 0, time.Time{}, []byte("x"), later); err != nil {
			t.Fatal(err)
		}
		if err := s.CommitUserCtx(ctx, "ann-3", 0, time.Time{}, []byte("x"), later); err != nil {
			t.Fatal(err)
		}
		if err := s.CommitUserCtx(ctx, "ann-3", ann, time.Now(), []byte("x"), later); err != nil {
			t.Fatal(err)
		}
		if err := db.SetPassword(ctx, ann, "new-hash"); err != nil {
			t.Fatal(err)
		}
		if u, err := db.UserByID(ctx, ann); err != nil || u.PasswordHash != "new-hash" {
			t.Fatalf("hash after SetPassword: %+v %v", u, err)
		}
		for token, live := range map[string]bool{"ann-1": false, "ann-2": false, "ann-3": false, "anonymous": true, "bob": true} {
			if _, found, _ := s.FindCtx(ctx, token); found != live {
				t.Errorf("session %s found=%v, want %v", token, found, live)
			}
			if token == "ann-3" || token == "anonymous" {
				continue
			}
			_, err := db.PasswordResetUser(ctx, "reset-"+token, time.Now())
			if (err == nil) != live {
				t.Errorf("reset token of %s: %v, want usable=%v", token, err, live)
			}
		}
		// A request of the old session under way when the password
		// changed stores it again as it ends: it stays ended. A session
		// signed in to afterwards counts.
		if err := s.CommitUserCtx(ctx, "ann-1", ann, time.Now().Add(-time.Minute), []byte("x"), later); err != nil {
			t.Fatal(err)
		}
		if err := s.CommitUserCtx(ctx, "ann-new", ann, time.Now(), []byte("x"), later); err != nil {
			t.Fatal(err)
		}
		for token, live := range map[string]bool{"ann-1": false, "ann-new": true} {
			if _, found, err := s.FindCtx(ctx, token); err != nil || found != live {
				t.Errorf("after the change, session %s found=%v (%v), want %v", token, found, err, live)
			}
		}
		if err := db.SetPassword(ctx, 1<<40, "x"); studyloop.ErrorCode(err) != studyloop.ENOTFOUND {
			t.Fatalf("SetPassword of no one: %v", err)
		}
	})
}

// TestResetPassword: a reset token works once, before it expires, even
// when presented several times at once; it sets the password and ends the
// user's sessions.
func TestResetPassword(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ann := storetest.Student(t, db, "ann@example.com")
		now := time.Now()
		expires := now.Add(30 * time.Minute)
		if err := db.CreatePasswordReset(ctx, ann, "tok", expires); err != nil {
			t.Fatal(err)
		}
		if err := db.Sessions().CommitUserCtx(ctx, "ann", ann, time.Now(), []byte("x"), expires); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name string
			hash string
			at   time.Time
		}{
			{"unknown token", "other", now},
			{"at its expiry", "tok", expires},
			{"after its expiry", "tok", expires.Add(time.Second)},
		}
		for _, tt := range tests {
			if _, err := db.PasswordResetUser(ctx, tt.hash, tt.at); !errors.Is(err, store.ErrResetInvalid) {
				t.Errorf("%s: PasswordResetUser: %v, want ErrResetInvalid", tt.name, err)
			}
			if _, err := db.ResetPassword(ctx, tt.hash, "h", tt.at); !errors.Is(err, store.ErrResetInvalid) {
				t.Errorf("%s: ResetPassword: %v, want ErrResetInvalid", tt.name, err)
			}
		}
		if u, err := db.PasswordResetUser(ctx, "tok", expires.Add(-time.Second)); err != nil || u.ID != ann {
			t.Fatalf("just before expiry: %+v %v", u, err)
		}

		var wg sync.WaitGroup
		results := make(chan error, 4)
		for range 4 {
			wg.Go(func() {
				user, err := db.ResetPassword(ctx, "tok", "new-hash", now)
				if err == nil && user != ann {
					err = errors.New("wrong user")
				}
				results <- err
			})
		}
		wg.Wait()
		close(results)
		succeeded := 0
		for err := range results {
			switch {
			case err == nil:
				succeeded++
			case !errors.Is(err, store.ErrResetInvalid):
				t.Errorf("concurrent reset: %v", err)
			}
		}
		if succeeded != 1 {
			t.Fatalf("%d concurrent resets with one token succeeded, want 1", succeeded)
		}
		if u, _ := db.UserByID(ctx, ann); u.PasswordHash != "new-hash" {
			t.Fatalf("hash after reset %q", u.PasswordHash)
		}
		if _, found, _ := db.Sessions().FindCtx(ctx, "ann"); found {
			t.Fatal("a session outlived the reset")
		}
		if n, err := db.PrunePasswordResets(ctx, expires.Add(time.Second)); err != nil || n != 1 {
			t.Fatalf("PrunePasswordResets = %d, %v; want 1", n, err)
		}
	})
}
