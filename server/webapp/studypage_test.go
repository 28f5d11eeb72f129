package webapp_test

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

// topicRowRE matches a topic's row on the study page: title, mastery
// percent, attempts, current and best streak.
var topicRowRE = regexp.MustCompile(`<th scope="row"[^>]*>([^<]+)</th>\s*<td[^>]*>\s*<progress max="100" value="(\d+)"[^>]*>\d+%</progress>\s*\d+%\s*</td>\s*<td[^>]*>(\d+)</td>\s*<td[^>]*>(\d+) \((\d+)\)</td>`)

func TestStudyPageRollsUpSubtopics(t *testing.T) {
	// Optics ⊃ Lenses ⊃ {Convex, Concave}: only the leaves have questions.
	topics := []studyloop.Topic{
		{Parent: -1, Title: "Optics"}, {Parent: 0, Title: "Lenses"}, {Parent: 1, Title: "Convex"}, {Parent: 1, Title: "Concave"},
	}
	tests := []struct {
		name    string
		answers map[int][]fsrs.Rating // topic index: ratings of its first questions
	}{
		{"nothing answered", nil},
		{"one leaf answered", map[int][]fsrs.Rating{2: {fsrs.Good, fsrs.Easy}}},
		{"both leaves answered", map[int][]fsrs.Rating{2: {fsrs.Good}, 3: {fsrs.Easy, fsrs.Again}}},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		alice := e.student(t, "alice@example.com")
		ctx := context.Background()
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ex := studyloop.Extraction{Topics: topics}
				for _, leaf := range []int{2, 3} {
					for i := range 2 {
						ex.Questions = append(ex.Questions, studyloop.Question{
							Topic: leaf, Type: studyloop.QuestionCloze, Prompt: fmt.Sprintf("Light bends in a ____ %d.%d.", leaf, i), Answer: "lens",
						})
					}
				}
				st, qs := storetest.CompleteStudy(t, db, alice.id, tt.name, "Lenses bend light.", ex)
				for topic, ratings := range tt.answers {
					var own []studyloop.Question
					for _, q := range qs {
						if q.Topic == topic {
							own = append(own, q)
						}
					}
					for i, r := range ratings {
						if _, err := storetest.Service(db).RecordAnswer(ctx, alice.id, own[i].ID, r, e.clock()); err != nil {
							t.Fatal(err)
						}
					}
				}

				m, err := storetest.Service(db).StudyMastery(ctx, alice.id, st.ID, e.clock())
				if err != nil {
					t.Fatal(err)
				}
				body := alice.get("/app/studies/" + st.ID).body
				rows := topicRowRE.FindAllStringSubmatch(body, -1)
				if len(rows) != len(topics) {
					t.Fatalf("%d topic rows, want %d: %s", len(rows), len(topics), body)
				}
				for i, row := range rows {
					want := m.Topics[i]
					pct, _ := strconv.Atoi(row[2])
					attempts, _ := strconv.Atoi(row[3])
					current, _ := strconv.Atoi(row[4])
					best, _ := strconv.Atoi(row[5])
					if row[1] != want.Title || pct != int(math.Round(want.Score*100)) || attempts != want.Attempts ||
						current != want.CurrentStreak || best != want.BestStreak {
						t.Errorf("row %d: %q %d%% %d attempts streak %d (%d), want %+v", i, row[1], pct, attempts, current, best, want)
					}
				}
				// The parents show their subtopics' figures; the study's
				// still count each question once.
				if m.Topics[0].Questions != 4 || m.Topics[1].Questions != 4 || m.Questions != 4 {
					t.Errorf("questions: Optics %d, Lenses %d, study %d; want 4 each", m.Topics[0].Questions, m.Topics[1].Questions, m.Questions)
				}
				if math.Abs(m.Topics[0].Score-m.Score) > 1e-12 || m.Topics[0].Attempts != m.Attempts {
					t.Errorf("Optics %+v, want the whole study's figures %+v", m.Topics[0].MasteryFigures, m.MasteryFigures)
				}
				if len(tt.answers) > 0 {
					if pct, _ := strconv.Atoi(rows[0][2]); pct == 0 || m.Topics[1].Attempts == 0 {
						t.Errorf("after answers to its subtopics, Optics shows %d%% and Lenses %d attempts", pct, m.Topics[1].Attempts)
					}
				}
			})
		}
	})
}

// TestStudyPageShowsReadingProgress: while a study made from uploads is
// read, its page says how many pages and photos are done of how many.
func TestStudyPageShowsReadingProgress(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		alice := e.student(t, "alice@example.com")
		ctx := context.Background()
		st, err := db.CreateUploadStudy(ctx, alice.id, "Scan", []studyloop.Upload{{Kind: "pdf", PageCount: 5, Data: []byte("%PDF-")}})
		if err != nil {
			t.Fatal(err)
		}
		progress := regexp.MustCompile(`Reading pages and photos: (\d+) of (\d+)</label>\s*<progress id="read-progress" max="(\d+)" value="(\d+)"`)
		steps := []struct {
			done   int
			want   []string
			status string
		}{
			{-1, []string{"0", "5", "5", "0"}, "Waiting to start"}, // queued, not yet claimed
			{2, []string{"2", "5", "5", "2"}, "Reading your pages and photos: 2 of 5"},
		}
		for _, step := range steps {
			if step.done >= 0 {
				if _, ok, err := db.ClaimStudy(ctx, "r", time.Minute, store.UploadLane); err != nil || !ok {
					t.Fatalf("claim: %v %v", ok, err)
				}
				if err := db.SetPagesDone(ctx, st.ID, "r", step.done); err != nil {
					t.Fatal(err)
				}
			}
			p := alice.get("/app/studies/" + st.ID)
			m := progress.FindStringSubmatch(p.body)
			if m == nil || fmt.Sprint(m[1:]) != fmt.Sprint(step.want) {
				t.Fatalf("after %d pages: progress %q, want %v in %.600s", step.done, m, step.want, p.body)
			}
			if !strings.Contains(p.body, `id="study-status">`+step.status+`<`) {
				t.Errorf("after %d pages the status is not %q", step.done, step.status)
			}
		}
	})
}
