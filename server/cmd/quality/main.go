// Command quality runs the offline question generator over study material
// and prints its mechanical figures per text and overall: questions, their
// rate per 1,000 words, share by type, the most repeated answer and
// distractor, prompts failing each precision check, and the share of bold
// terms asked. With -sample it prints instead a seeded random sample of the
// questions, with their source sentences, for a reader to rate with the
// question rubric.
//
// Usage:
//
//	quality [-sample N] [-seed S] PATH...
//
// Each PATH is a file or a directory (read one level deep). Markdown and
// plain text are read as they are; PDFs and photos go through the same
// extraction as uploads, so pdftotext and tesseract must be installed for
// them (they are skipped with a note otherwise).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/studyloop/studyloop/server/engine"
	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/studyloop"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "quality:", err)
		os.Exit(1)
	}
}

// study is one text and what the generator made of it.
type study struct {
	name    string
	text    string
	ex      studyloop.Extraction
	err     error
	elapsed time.Duration
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("quality", flag.ContinueOnError)
	flags.SetOutput(stderr)
	sample := flags.Int("sample", 0, "print a random sample of this many questions instead of the figures")
	seed := flags.Uint64("seed", 2026, "seed of the sample")
	unasked := flags.Bool("unasked", false, "also list each text's bold terms that no question asks")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() == 0 {
		return fmt.Errorf("name at least one file or directory of study material")
	}
	files, err := listFiles(flags.Args())
	if err != nil {
		return err
	}
	gen, err := engine.NewOffline(nil)
	if err != nil {
		return err
	}
	x := extract.New(nil)
	var studies []study
	for _, f := range files {
		text, err := readText(ctx, x, f)
		if err != nil {
			fmt.Fprintf(stderr, "%s: skipped: %v\n", f, err)
			continue
		}
		start := time.Now()
		ex, err := gen.Generate(ctx, strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)), text)
		studies = append(studies, study{name: filepath.Base(f), text: text, ex: ex, err: err, elapsed: time.Since(start)})
	}
	if *sample > 0 {
		printSample(stdout, studies, *sample, *seed)
		return nil
	}
	printFigures(stdout, studies)
	if *unasked {
		printUnasked(stdout, studies)
	}
	return nil
}

// listFiles expands directories (one level) into their study files, sorted.
func listFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			switch strings.ToLower(filepath.Ext(e.Name())) {
			case ".md", ".txt", ".pdf", ".png", ".jpg", ".jpeg":
				if !e.IsDir() && !strings.EqualFold(e.Name(), "README.md") {
					out = append(out, filepath.Join(p, e.Name()))
				}
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// readText reads a study file as an upload of its kind would be read.
func readText(ctx context.Context, x *extract.Extractor, path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".pdf":
		if err := x.PDFAvailable(); err != nil {
			return "", err
		}
		parts, err := x.PDF(ctx, data, "")
		if err != nil {
			return "", err
		}
		text, _ := extract.Join(parts)
		return text, nil
	case ".png", ".jpg", ".jpeg":
		if err := x.OCRAvailable(); err != nil {
			return "", err
		}
		part, err := x.Photo(ctx, data, extract.PhotoLabel(1))
		if err != nil {
			return "", err
		}
		text, _ := extract.Join([]extract.Part{part})
		return text, nil
	}
	return string(data), nil
}

var types = []studyloop.QuestionType{
	studyloop.QuestionShortAnswer, studyloop.QuestionTermDefinition, studyloop.QuestionCloze, studyloop.QuestionMultipleChoice,
}

func printFigures(w io.Writer, studies []study) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "text\twords\tquestions\tper 1k words\t")
	for _, t := range types {
		fmt.Fprintf(tw, "%s\t", t)
	}
	fmt.Fprint(tw, "top answer\ttop distractor\tbold asked\tfailing checks\tms\t\n")
	var total engine.Report
	total.ByType = map[studyloop.QuestionType]int{}
	total.Failing = map[string]int{}
	for _, s := range studies {
		if s.err != nil {
			fmt.Fprintf(tw, "%s\t%v\t\n", s.name, s.err)
			continue
		}
		r := engine.Measure(s.text, s.ex)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t", s.name, r.Words, r.Questions, r.PerThousandWords())
		for _, t := range types {
			fmt.Fprintf(tw, "%s\t", percent(r.ByType[t], r.Questions))
		}
		fmt.Fprintf(tw, "×%d\t×%d\t%s\t%d\t%d\t\n", r.TopAnswerCount, r.TopDistractorCount, termShare(r), failing(r), s.elapsed.Milliseconds())
		total.Words += r.Words
		total.Questions += r.Questions
		total.Terms += r.Terms
		total.TermsAsked += r.TermsAsked
		total.TopAnswerCount = max(total.TopAnswerCount, r.TopAnswerCount)
		total.TopDistractorCount = max(total.TopDistractorCount, r.TopDistractorCount)
		for t, n := range r.ByType {
			total.ByType[t] += n
		}
		for c, n := range r.Failing {
			total.Failing[c] += n
		}
	}
	fmt.Fprintf(tw, "all\t%d\t%d\t%.1f\t", total.Words, total.Questions, total.PerThousandWords())
	for _, t := range types {
		fmt.Fprintf(tw, "%s\t", percent(total.ByType[t], total.Questions))
	}
	fmt.Fprintf(tw, "×%d\t×%d\t%s\t%d\t\t\n", total.TopAnswerCount, total.TopDistractorCount, termShare(total), failing(total))
	tw.Flush()
	fmt.Fprintln(w, "\nprompts failing each precision check (all texts):")
	for _, c := range engine.PrecisionChecks {
		fmt.Fprintf(w, "  %-28s %d\n", c.Name, total.Failing[c.Name])
	}
	fmt.Fprintln(w, "\ntop answer and distractor per text:")
	for _, s := range studies {
		if s.err == nil {
			r := engine.Measure(s.text, s.ex)
			fmt.Fprintf(w, "  %s: answer %q ×%d, distractor %q ×%d\n", s.name, r.TopAnswer, r.TopAnswerCount, r.TopDistractor, r.TopDistractorCount)
		}
	}
}

func failing(r engine.Report) int {
	n := 0
	for _, v := range r.Failing {
		n += v
	}
	return n
}

func percent(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", float64(n)*100/float64(of))
}

func termShare(r engine.Report) string {
	if r.Terms == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", r.TermsAsked, r.Terms)
}

// printSample prints n questions drawn at random (seeded) from all studies,
// each with its text, type, answer, choices and source.
func printSample(w io.Writer, studies []study, n int, seed uint64) {
	type ref struct {
		s *study
		q studyloop.Question
	}
	var all []ref
	for i := range studies {
		for _, q := range studies[i].ex.Questions {
			all = append(all, ref{&studies[i], q})
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	for i, r := range all[:min(n, len(all))] {
		topic := fmt.Sprintf("topic %q", r.s.ex.Topics[r.q.Topic].Title)
		if r.q.NamedBy(r.s.ex.Topics[r.q.Topic].Title) {
			topic = "topic not shown (its title names the answer, so the practice card leaves it out)"
		}
		fmt.Fprintf(w, "## %d. %s · %s · %s\n", i+1, r.s.name, r.q.Type, topic)
		fmt.Fprintf(w, "Q: %s\nA: %s\n", r.q.Prompt, r.q.Answer)
		if len(r.q.Choices) > 0 {
			fmt.Fprintf(w, "Choices: %s\n", strings.Join(r.q.Choices, " | "))
		}
		if len(r.q.Alternatives) > 0 {
			fmt.Fprintf(w, "Also accepted: %s\n", strings.Join(r.q.Alternatives, " | "))
		}
		src := strings.Join(strings.Fields(r.s.text[r.q.Source.Start:r.q.Source.End]), " ")
		fmt.Fprintf(w, "Source: %s\n\n", src)
	}
}

// printUnasked lists, per text, the bold terms no question asks.
func printUnasked(w io.Writer, studies []study) {
	fmt.Fprintln(w, "\nbold terms not asked:")
	for _, s := range studies {
		if r := engine.Measure(s.text, s.ex); len(r.Unasked) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", s.name, strings.Join(r.Unasked, "; "))
		}
	}
}
