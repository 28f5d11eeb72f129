package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// claimIn claims from a lane and returns the study's id, "" for nothing.
func claimIn(t *testing.T, db *store.DB, lane store.Lane) string {
	t.Helper()
	c, ok, err := db.ClaimStudy(context.Background(), "w", time.Minute, lane)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return ""
	}
	return c.Study.ID
}

// finish ends a claimed study, as a worker does.
func finish(t *testing.T, db *store.DB, id string) {
	t.Helper()
	if err := db.FailStudy(context.Background(), id, "w", "done"); err != nil {
		t.Fatal(err)
	}
}

// TestFairClaimOrder: workers take the study of the account served least
// recently, hold at most one study of an account per lane at a time, and
// read uploads in a lane of their own.
func TestFairClaimOrder(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, b, c := storetest.User(t, db), storetest.User(t, db), storetest.User(t, db)
		a1, a2 := storetest.PendingStudy(t, db, a, "", "a1"), storetest.PendingStudy(t, db, a, "", "a2")
		storetest.PendingStudy(t, db, a, "", "a3")
		b1 := storetest.PendingStudy(t, db, b, "", "b1")
		upload, err := db.CreateUploadStudy(ctx, a, "", []studyloop.Upload{{Kind: "jpeg", PageCount: 1, Data: []byte("\xff\xd8\xff")}})
		if err != nil {
			t.Fatal(err)
		}
		var c1, none string
		steps := []struct {
			name   string
			lane   store.Lane
			want   *string
			before func()
		}{
			{"the oldest study first", store.TextLane, &a1.ID, nil},
			{"an account with a study in flight waits", store.TextLane, &b1.ID, nil},
			{"nothing while both accounts are in flight", store.TextLane, &none, nil},
			{"uploads have a lane of their own", store.UploadLane, &upload.ID, nil},
			{"one upload of an account at a time", store.UploadLane, &none, nil},
			{"an account never served goes first, though its study is the newest", store.TextLane, &c1, func() {
				finish(t, db, a1.ID)
				finish(t, db, b1.ID)
				c1 = storetest.PendingStudy(t, db, c, "", "c1").ID
			}},
			{"then the account served longest ago", store.TextLane, &a2.ID, nil},
		}
		for _, st := range steps {
			if st.before != nil {
				st.before()
			}
			if got := claimIn(t, db, st.lane); got != *st.want {
				t.Fatalf("%s: claimed %q, want %q", st.name, got, *st.want)
			}
		}
	})
}

// TestConcurrentLaneClaims: workers racing in a lane take each study once
// and never hold two studies of one account at the same time.
func TestConcurrentLaneClaims(t *testing.T) {
	const users, perUser, workers = 5, 6, 8
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		owner := map[string]int64{}
		for range users {
			u := storetest.User(t, db)
			for range perUser {
				owner[storetest.PendingStudy(t, db, u, "", "text").ID] = u
			}
		}
		var (
			mu       sync.Mutex
			claims   = map[string]int{}
			inFlight = map[int64]int{}
			wg       sync.WaitGroup
		)
		for w := range workers {
			wg.Go(func() {
				name := fmt.Sprint("w", w)
				for idle := 0; idle < 20; {
					c, ok, err := db.ClaimStudy(context.Background(), name, time.Minute, store.TextLane)
					if err != nil {
						t.Error(err)
						return
					}
					if !ok {
						idle++
						time.Sleep(5 * time.Millisecond)
						continue
					}
					user := owner[c.Study.ID]
					mu.Lock()
					claims[c.Study.ID]++
					inFlight[user]++
					if inFlight[user] > 1 {
						t.Errorf("account %d has %d studies in flight", user, inFlight[user])
					}
					mu.Unlock()
					time.Sleep(2 * time.Millisecond)
					mu.Lock()
					inFlight[user]--
					mu.Unlock()
					if err := db.FailStudy(context.Background(), c.Study.ID, name, "done"); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		if len(claims) != users*perUser {
			t.Fatalf("%d studies claimed, want %d", len(claims), users*perUser)
		}
		for id, n := range claims {
			if n != 1 {
				t.Errorf("study %s claimed %d times", id, n)
			}
		}
	})
}
