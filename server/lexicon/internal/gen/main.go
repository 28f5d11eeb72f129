// Command gen writes the lexicon's data file from a WordNet 3.0 database
// (Debian's wordnet-base installs one in /usr/share/wordnet):
//
//	go run ./server/lexicon/internal/gen /usr/share/wordnet server/lexicon/wordnet.gz
//
// The file is gzip-compressed text in three kinds of lines, tab-separated:
//
//	S <hypernym ids, comma-separated>      one per noun synset; ids count from 0
//	W <lemma> <tagged count> <senses> <noun synset ids, comma-separated>
//	E <irregular noun form> <lemma>
//	V <verb lemma>                          one-word verbs only
//	X <irregular verb form> <lemma>
//
// The tagged count is how often the lemma's senses were tagged in the
// SemCor corpus (WordNet's cntlist.rev), senses its number of synsets over
// all parts of speech.
package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen WORDNET_DIR OUT_FILE")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

type word struct {
	count, senses int
	synsets       []int
}

func run(dir, out string) error {
	// Noun synsets, numbered in file order, with their hypernyms.
	ids := map[string]int{}
	var hypernyms [][]string
	err := eachLine(filepath.Join(dir, "data.noun"), func(line string) error {
		f := strings.Fields(line)
		ids[f[0]] = len(hypernyms)
		words, err := strconv.ParseInt(f[3], 16, 32)
		if err != nil {
			return err
		}
		p := 4 + 2*int(words)
		n, err := strconv.Atoi(f[p])
		if err != nil {
			return err
		}
		var hs []string
		for k := range n {
			ptr := f[p+1+4*k : p+5+4*k]
			if (ptr[0] == "@" || ptr[0] == "@i") && ptr[2] == "n" {
				hs = append(hs, ptr[1])
			}
		}
		hypernyms = append(hypernyms, hs)
		return nil
	})
	if err != nil {
		return err
	}
	words := map[string]*word{}
	get := func(lemma string) *word {
		lemma = strings.ReplaceAll(strings.ToLower(lemma), "_", " ")
		w := words[lemma]
		if w == nil {
			w = &word{}
			words[lemma] = w
		}
		return w
	}
	var verbs []string
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		err := eachLine(filepath.Join(dir, "index."+pos), func(line string) error {
			f := strings.Fields(line)
			senses, err := strconv.Atoi(f[2])
			if err != nil {
				return err
			}
			if pos == "verb" && !strings.Contains(f[0], "_") {
				verbs = append(verbs, f[0])
			}
			w := get(f[0])
			w.senses += senses
			if pos == "noun" {
				for _, off := range f[len(f)-senses:] {
					w.synsets = append(w.synsets, ids[off])
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	err = eachLine(filepath.Join(dir, "cntlist.rev"), func(line string) error {
		f := strings.Fields(line)
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return err
		}
		lemma, _, _ := strings.Cut(f[0], "%")
		get(lemma).count += n
		return nil
	})
	if err != nil {
		return err
	}
	file, err := os.Create(out)
	if err != nil {
		return err
	}
	defer file.Close()
	zw, err := gzip.NewWriterLevel(file, gzip.BestCompression)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(zw)
	for _, hs := range hypernyms {
		nums := make([]string, len(hs))
		for i, h := range hs {
			nums[i] = strconv.Itoa(ids[h])
		}
		fmt.Fprintf(bw, "S\t%s\n", strings.Join(nums, ","))
	}
	lemmas := make([]string, 0, len(words))
	for l := range words {
		lemmas = append(lemmas, l)
	}
	slices.Sort(lemmas)
	for _, l := range lemmas {
		w := words[l]
		nums := make([]string, len(w.synsets))
		for i, s := range w.synsets {
			nums[i] = strconv.Itoa(s)
		}
		fmt.Fprintf(bw, "W\t%s\t%d\t%d\t%s\n", l, w.count, w.senses, strings.Join(nums, ","))
	}
	err = eachLine(filepath.Join(dir, "noun.exc"), func(line string) error {
		f := strings.Fields(line)
		_, err := fmt.Fprintf(bw, "E\t%s\t%s\n", strings.ReplaceAll(f[0], "_", " "), strings.ReplaceAll(f[1], "_", " "))
		return err
	})
	if err != nil {
		return err
	}
	for _, v := range verbs {
		fmt.Fprintf(bw, "V\t%s\n", v)
	}
	err = eachLine(filepath.Join(dir, "verb.exc"), func(line string) error {
		f := strings.Fields(line)
		if strings.Contains(f[0], "_") || strings.Contains(f[1], "_") {
			return nil
		}
		_, err := fmt.Fprintf(bw, "X\t%s\t%s\n", f[0], f[1])
		return err
	})
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return file.Close()
}

// eachLine calls fn with each line of a WordNet file, skipping the licence
// lines that open the data and index files (they start with spaces).
func eachLine(path string, fn func(string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == ' ' {
			continue
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("%s: %q: %w", path, line, err)
		}
	}
	return sc.Err()
}
