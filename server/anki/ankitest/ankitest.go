// Package ankitest reads an Anki package (.apkg) back, as Anki's importer
// does, for tests of the packages package anki writes.
package ankitest

import (
	"archive/zip"
	"bytes"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uptrace/bun/driver/sqliteshim"
)

// Package is an .apkg as tests read it back: the zip's files and the
// collection's rows.
type Package struct {
	Files  map[string][]byte
	Ver    int
	Models map[string]struct {
		Name  string                  `json:"name"`
		Type  int                     `json:"type"`
		Flds  []struct{ Name string } `json:"flds"`
		Tmpls []struct {
			Qfmt string `json:"qfmt"`
		} `json:"tmpls"`
	}
	Decks map[string]struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	Notes []Note
	Cards []Card
}

// Note is a notes row; Fields are flds split at the field separator.
type Note struct {
	ID, Mid, Csum int64
	GUID, Tags    string
	Fields        []string
	Sfld          string
}

// Card is a cards row.
type Card struct{ ID, Nid, Did, Ord, Queue, Type int64 }

// Read opens an .apkg the way an importer does.
func Read(tb testing.TB, data []byte) Package {
	tb.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		tb.Fatalf("not a zip: %v", err)
	}
	p := Package{Files: map[string][]byte{}}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			tb.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			tb.Fatal(err)
		}
		p.Files[f.Name] = b
	}
	path := filepath.Join(tb.TempDir(), "collection.anki2")
	if err := os.WriteFile(path, p.Files["collection.anki2"], 0o600); err != nil {
		tb.Fatal(err)
	}
	db, err := sql.Open(sqliteshim.ShimName, "file:"+path+"?mode=ro")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	var models, decks string
	if err := db.QueryRow(`SELECT ver, models, decks FROM col`).Scan(&p.Ver, &models, &decks); err != nil {
		tb.Fatalf("col: %v", err)
	}
	if err := json.Unmarshal([]byte(models), &p.Models); err != nil {
		tb.Fatalf("models: %v", err)
	}
	if err := json.Unmarshal([]byte(decks), &p.Decks); err != nil {
		tb.Fatalf("decks: %v", err)
	}
	rows, err := db.Query(`SELECT id, guid, mid, tags, flds, sfld, csum FROM notes ORDER BY id`)
	if err != nil {
		tb.Fatal(err)
	}
	for rows.Next() {
		var n Note
		var flds string
		if err := rows.Scan(&n.ID, &n.GUID, &n.Mid, &n.Tags, &flds, &n.Sfld, &n.Csum); err != nil {
			tb.Fatal(err)
		}
		n.Fields = strings.Split(flds, "\x1f")
		p.Notes = append(p.Notes, n)
	}
	rows.Close()
	rows, err = db.Query(`SELECT id, nid, did, ord, queue, type FROM cards ORDER BY id`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var c Card
		if err := rows.Scan(&c.ID, &c.Nid, &c.Did, &c.Ord, &c.Queue, &c.Type); err != nil {
			tb.Fatal(err)
		}
		p.Cards = append(p.Cards, c)
	}
	return p
}
