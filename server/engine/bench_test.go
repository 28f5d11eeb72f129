package engine

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkGenerate processes growing prefixes of Opticks (10,000, 40,000 and
// 400,000 characters) and reports, besides time, the peak heap in use during
// one run (sampled every millisecond) and the topics and questions made.
// Time per character should stay flat or fall as the text grows.
func BenchmarkGenerate(b *testing.B) {
	g := mustOffline(b)
	for _, n := range []int{10_000, 40_000, 400_000} {
		text := opticks(b, n)
		b.Run("chars="+strconv.Itoa(n), func(b *testing.B) {
			var topics, questions int
			var peak uint64
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				stop := sampleHeap(&peak)
				ex, err := g.Generate(context.Background(), "Opticks", text)
				stop()
				if err != nil {
					b.Fatal(err)
				}
				topics, questions = len(ex.Topics), len(ex.Questions)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(topics), "topics")
			b.ReportMetric(float64(questions), "questions")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(text)), "ns/char")
		})
	}
}

// sampleHeap records the largest HeapInuse seen until the returned stop is
// called.
func sampleHeap(peak *uint64) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	read := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if m.HeapInuse > *peak {
			*peak = m.HeapInuse
		}
	}
	wg.Go(func() {
		for !done.Load() {
			read()
			time.Sleep(time.Millisecond)
		}
		read()
	})
	return func() {
		done.Store(true)
		wg.Wait()
	}
}
