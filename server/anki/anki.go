// Package anki writes a deck of notes as an Anki package (.apkg) that Anki
// 2.1 imports: a zip holding collection.anki2, an SQLite database in the
// collection format of schema version 11 (the tables col, notes, cards,
// revlog and graves, with note types, decks and deck options as JSON in
// col), and media, a JSON object naming the package's media files (none).
//
// Two note types are written: Basic (fields Front and Back, one card) and
// Cloze (fields Text and Back Extra, one card per {{c1::…}} deletion).
// Cards are new; suspended notes' cards are suspended.
package anki

import (
	"archive/zip"
	"context"
	"crypto/sha1"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/uptrace/bun/driver/sqliteshim"
)

// Kind is a note's type.
type Kind int

// The note types of a package.
const (
	Basic Kind = iota // Front, Back
	Cloze             // Text with {{c1::…}}, Back Extra
)

// Note is one note: its two fields (HTML), its tags and whether its card
// is suspended.
type Note struct {
	Kind      Kind
	Fields    [2]string
	Tags      []string // without spaces; "::" nests them
	Suspended bool
	// Key identifies the note across exports, so that importing a newer
	// package updates the notes of an older one instead of adding copies.
	Key string
}

// Deck is what a package holds: a deck name ("::" nests decks) and notes.
type Deck struct {
	Name  string
	Notes []Note
}

// Model ids: fixed, so that every package of this service shares its two
// note types in a student's collection.
const (
	BasicModelID int64 = 1732406400001
	ClozeModelID int64 = 1732406400002
	defaultDeck  int64 = 1
)

// Write writes d as an .apkg to w; now stamps the collection and is the
// base of the note and card ids. It needs a temporary directory for the
// database file.
func Write(ctx context.Context, w io.Writer, d Deck, now time.Time) error {
	dir, err := os.MkdirTemp("", "apkg-")
	if err != nil {
		return fmt.Errorf("anki: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "collection.anki2")
	if err := writeCollection(ctx, path, d, now); err != nil {
		return err
	}
	collection, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("anki: %w", err)
	}
	z := zip.NewWriter(w)
	for _, f := range []struct {
		name string
		data []byte
	}{{"collection.anki2", collection}, {"media", []byte("{}")}} {
		fw, err := z.Create(f.name)
		if err != nil {
			return fmt.Errorf("anki: %w", err)
		}
		if _, err := fw.Write(f.data); err != nil {
			return fmt.Errorf("anki: %w", err)
		}
	}
	if err := z.Close(); err != nil {
		return fmt.Errorf("anki: %w", err)
	}
	return nil
}

// schema is the collection schema of version 11.
const schema = `
CREATE TABLE col (id integer primary key, crt integer not null, mod integer not null, scm integer not null, ver integer not null,
	dty integer not null, usn integer not null, ls integer not null, conf text not null, models text not null, decks text not null,
	dconf text not null, tags text not null);
CREATE TABLE notes (id integer primary key, guid text not null, mid integer not null, mod integer not null, usn integer not null,
	tags text not null, flds text not null, sfld integer not null, csum integer not null, flags integer not null, data text not null);
CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null, ord integer not null, mod integer not null,
	usn integer not null, type integer not null, queue integer not null, due integer not null, ivl integer not null,
	factor integer not null, reps integer not null, lapses integer not null, left integer not null, odue integer not null,
	odid integer not null, flags integer not null, data text not null);
CREATE TABLE revlog (id integer primary key, cid integer not null, usn integer not null, ease integer not null, ivl integer not null,
	lastIvl integer not null, factor integer not null, time integer not null, type integer not null);
CREATE TABLE graves (usn integer not null, oid integer not null, type integer not null);
CREATE INDEX ix_notes_usn on notes (usn);
CREATE INDEX ix_cards_usn on cards (usn);
CREATE INDEX ix_revlog_usn on revlog (usn);
CREATE INDEX ix_cards_nid on cards (nid);
CREATE INDEX ix_cards_sched on cards (did, queue, due);
CREATE INDEX ix_revlog_cid on revlog (cid);
CREATE INDEX ix_notes_csum on notes (csum);
`

func writeCollection(ctx context.Context, path string, d Deck, now time.Time) error {
	db, err := sql.Open(sqliteshim.ShimName, "file:"+path)
	if err != nil {
		return fmt.Errorf("anki: %w", err)
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("anki: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("anki: schema: %w", err)
	}
	secs, millis := now.Unix(), now.UnixMilli()
	deckID := millis
	col, err := collectionJSON(d.Name, deckID, secs, len(d.Notes))
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO col VALUES (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, '{}')`,
		secs, millis, millis, col.conf, col.models, col.decks, col.dconf); err != nil {
		return fmt.Errorf("anki: col: %w", err)
	}
	for i, n := range d.Notes {
		id := millis + int64(i) // unique, increasing: note and card ids are creation times in ms
		mid := BasicModelID
		if n.Kind == Cloze {
			mid = ClozeModelID
		}
		tags := ""
		if len(n.Tags) > 0 {
			tags = " " + strings.Join(n.Tags, " ") + " "
		}
		sortField := stripHTML(n.Fields[0])
		if _, err := tx.ExecContext(ctx, `INSERT INTO notes VALUES (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, '')`,
			id, guid(n.Key), mid, secs, tags, n.Fields[0]+"\x1f"+n.Fields[1], sortField, checksum(sortField)); err != nil {
			return fmt.Errorf("anki: note: %w", err)
		}
		queue := 0 // new
		if n.Suspended {
			queue = -1
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO cards VALUES (?, ?, ?, 0, ?, -1, 0, ?, ?, 0, 0, 0, 0, 0, 0, 0, 0, '')`,
			id, id, deckID, secs, queue, i+1); err != nil {
			return fmt.Errorf("anki: card: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("anki: %w", err)
	}
	return nil
}

// collection holds the JSON columns of col.
type collection struct{ conf, models, decks, dconf string }

func collectionJSON(deckName string, deckID, secs int64, notes int) (collection, error) {
	field := func(name string, ord int) map[string]any {
		return map[string]any{"name": name, "ord": ord, "sticky": false, "rtl": false, "font": "Arial", "size": 20, "media": []any{}}
	}
	template := func(qfmt, afmt string) []map[string]any {
		return []map[string]any{{"name": "Card 1", "ord": 0, "qfmt": qfmt, "afmt": afmt, "bqfmt": "", "bafmt": "", "did": nil, "bfont": "", "bsize": 0}}
	}
	model := func(id int64, name string, kind Kind, fields []map[string]any, tmpls []map[string]any) map[string]any {
		return map[string]any{
			"id": id, "name": name, "type": int(kind), "mod": secs, "usn": -1, "sortf": 0, "did": deckID,
			"flds": fields, "tmpls": tmpls, "tags": []any{}, "vers": []any{},
			"css":       ".card { font-family: arial; font-size: 20px; text-align: center; color: black; background-color: white; }\n.cloze { font-weight: bold; color: blue; }",
			"latexPre":  "\\documentclass[12pt]{article}\n\\special{papersize=3in,5in}\n\\usepackage[utf8]{inputenc}\n\\usepackage{amssymb,amsmath}\n\\pagestyle{empty}\n\\setlength{\\parindent}{0in}\n\\begin{document}\n",
			"latexPost": "\\end{document}", "latexsvg": false,
			"req": [][]any{{0, "any", []int{0}}},
		}
	}
	models := map[string]any{
		fmt.Sprint(BasicModelID): model(BasicModelID, "Studyloop Basic", Basic,
			[]map[string]any{field("Front", 0), field("Back", 1)},
			template("{{Front}}", "{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}")),
		fmt.Sprint(ClozeModelID): model(ClozeModelID, "Studyloop Cloze", Cloze,
			[]map[string]any{field("Text", 0), field("Back Extra", 1)},
			template("{{cloze:Text}}", "{{cloze:Text}}<br>\n{{Back Extra}}")),
	}
	deck := func(id int64, name string) map[string]any {
		return map[string]any{
			"id": id, "name": name, "mod": secs, "usn": -1, "desc": "", "dyn": 0, "conf": 1, "collapsed": false, "browserCollapsed": false,
			"newToday": []int{0, 0}, "revToday": []int{0, 0}, "lrnToday": []int{0, 0}, "timeToday": []int{0, 0},
			"extendNew": 0, "extendRev": 0,
		}
	}
	decks := map[string]any{fmt.Sprint(defaultDeck): deck(defaultDeck, "Default"), fmt.Sprint(deckID): deck(deckID, deckName)}
	dconf := map[string]any{"1": map[string]any{
		"id": 1, "name": "Default", "mod": 0, "usn": 0, "maxTaken": 60, "autoplay": true, "timer": 0, "replayq": true, "dyn": false,
		"new":   map[string]any{"delays": []float64{1, 10}, "ints": []int{1, 4, 0}, "initialFactor": 2500, "order": 1, "perDay": 20, "bury": false},
		"rev":   map[string]any{"perDay": 200, "ease4": 1.3, "ivlFct": 1, "maxIvl": 36500, "bury": false, "hardFactor": 1.2},
		"lapse": map[string]any{"delays": []float64{10}, "mult": 0, "minInt": 1, "leechFails": 8, "leechAction": 1},
	}}
	conf := map[string]any{
		"activeDecks": []int64{deckID}, "curDeck": deckID, "newSpread": 0, "collapseTime": 1200, "timeLim": 0,
		"estTimes": true, "dueCounts": true, "curModel": BasicModelID, "nextPos": notes + 1, "sortType": "noteFld",
		"sortBackwards": false, "addToCur": true,
	}
	var c collection
	for _, part := range []struct {
		to *string
		v  any
	}{{&c.conf, conf}, {&c.models, models}, {&c.decks, decks}, {&c.dconf, dconf}} {
		b, err := json.Marshal(part.v)
		if err != nil {
			return c, fmt.Errorf("anki: %w", err)
		}
		*part.to = string(b)
	}
	return c, nil
}

var tagsRE = regexp.MustCompile(`<[^>]*>`)

// stripHTML is a field as Anki sorts and checks it: without tags, with
// entities decoded.
func stripHTML(s string) string { return html.UnescapeString(tagsRE.ReplaceAllString(s, "")) }

// checksum is Anki's note checksum: the first 8 hex digits of the SHA-1 of
// the stripped first field, as a number.
func checksum(s string) int64 {
	sum := sha1.Sum([]byte(s))
	return int64(binary.BigEndian.Uint32(sum[:4]))
}

// guid is a note's globally unique id, derived from its key so that a
// later export of the same question carries the same one.
func guid(key string) string {
	sum := sha1.Sum([]byte("studyloop:" + key))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_`{|}~"
	n := binary.BigEndian.Uint64(sum[:8])
	var b []byte
	for n > 0 {
		b = append(b, alphabet[n%uint64(len(alphabet))])
		n /= uint64(len(alphabet))
	}
	return string(b)
}
