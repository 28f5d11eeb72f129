package worker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/engine"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
	"github.com/studyloop/studyloop/server/worker"
)

const lectureNotes = `# The Water Cycle

Water moves between the oceans, the air and the land in a loop called the water cycle. The sun drives the cycle by heating water at the surface.

## Evaporation

Evaporation is the change of liquid water into water vapour. Most evaporation happens over the oceans, where the sun warms a huge surface of water. Plants also release water vapour from their leaves in a process called transpiration.

## Condensation

Condensation is the change of water vapour back into liquid droplets. Rising air cools as it expands, and cool air holds less vapour than warm air. The droplets gather on dust particles and form clouds.

## Precipitation

- Rain: liquid water falling from clouds
- Snow: ice crystals that fall when the air is below freezing
- Hail: balls of ice built up in strong thunderstorms
- Sleet: raindrops that freeze before they reach the ground

Runoff carries rain water over the ground into rivers, lakes and finally the sea. Groundwater soaks into the soil and can stay underground for thousands of years.
`

// TestOfflineEngineEndToEnd runs the real offline generator through a pool:
// a markdown lecture becomes a ready study with stored topics and
// questions, and a pathological single line of 400,000 characters ends
// ready or failed with a reason within the time bound.
func TestOfflineEngineEndToEnd(t *testing.T) {
	gen, err := engine.NewOffline(nil)
	if err != nil {
		t.Fatal(err)
	}
	pathological := strings.Repeat("word ", studyloop.MaxStudyTextChars/5)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		user := storetest.User(t, db)
		lecture, err := db.CreateStudy(ctx, user, "", lectureNotes)
		if err != nil {
			t.Fatal(err)
		}
		oneLine, err := db.CreateStudy(ctx, user, "", pathological)
		if err != nil {
			t.Fatal(err)
		}
		const bound = 20 * time.Second
		start := time.Now()
		startPool(t, db, gen, &worker.Options{Workers: 2, Timeout: bound, PollInterval: 20 * time.Millisecond})
		settled := waitSettled(t, db, lecture, oneLine)
		if took := time.Since(start); took > bound+5*time.Second {
			t.Errorf("took %v, beyond the %v bound", took, bound)
		}

		got := settled[0]
		if got.Status != studyloop.StatusReady || got.Title != "The Water Cycle" {
			t.Fatalf("lecture: %+v, want ready and titled from its heading", got)
		}
		topics, err := db.Topics(ctx, user, lecture.ID)
		if err != nil {
			t.Fatal(err)
		}
		questions, err := db.Questions(ctx, user, lecture.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(topics) != got.TopicCount || len(questions) != got.QuestionCount || len(topics) < 3 || len(questions) < 3 {
			t.Fatalf("lecture: %d topics and %d questions stored, counts say %d and %d; want at least 3 each",
				len(topics), len(questions), got.TopicCount, got.QuestionCount)
		}
		for _, q := range questions {
			if q.TopicID != topics[q.Topic].ID || q.Source.End > len(lectureNotes) || q.Source.Start >= q.Source.End {
				t.Errorf("question %+v: topic or span does not fit", q)
			}
		}
		t.Logf("lecture: %d topics, %d questions", len(topics), len(questions))

		if s := settled[1]; s.Status == studyloop.StatusFailed && s.Reason == "" {
			t.Errorf("single line failed without a reason")
		} else {
			t.Logf("single 400,000-character line: %s %q, %d topics, %d questions", s.Status, s.Reason, s.TopicCount, s.QuestionCount)
		}
	})
}
