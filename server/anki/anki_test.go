package anki_test

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/anki"
	"github.com/studyloop/studyloop/server/anki/ankitest"
)

func TestWrite(t *testing.T) {
	deck := anki.Deck{Name: "Studyloop::Light & optics", Notes: []anki.Note{
		{Kind: anki.Basic, Fields: [2]string{"What is refraction?", "The bending of light"}, Tags: []string{"Optics::Refraction"}, Key: "q1"},
		{Kind: anki.Cloze, Fields: [2]string{"Light travels in straight {{c1::lines}}.", ""}, Tags: []string{"Optics"}, Key: "q2"},
		{Kind: anki.Basic, Fields: [2]string{"<b>Bold</b> &amp; co", "x"}, Suspended: true, Key: "q3"},
	}}
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	export := func() ankitest.Package {
		var buf bytes.Buffer
		if err := anki.Write(context.Background(), &buf, deck, now); err != nil {
			t.Fatal(err)
		}
		return ankitest.Read(t, buf.Bytes())
	}
	p := export()
	if string(p.Files["media"]) != "{}" || len(p.Files) != 2 {
		t.Errorf("files %v, want collection.anki2 and an empty media map", len(p.Files))
	}
	if p.Ver != 11 {
		t.Errorf("schema version %d, want 11", p.Ver)
	}
	basic, cloze := p.Models["1732406400001"], p.Models["1732406400002"]
	if basic.Type != 0 || len(basic.Flds) != 2 || basic.Flds[0].Name != "Front" || basic.Tmpls[0].Qfmt != "{{Front}}" {
		t.Errorf("Basic note type: %+v", basic)
	}
	if cloze.Type != 1 || cloze.Flds[0].Name != "Text" || cloze.Tmpls[0].Qfmt != "{{cloze:Text}}" {
		t.Errorf("Cloze note type: %+v", cloze)
	}
	if len(p.Notes) != 3 || len(p.Cards) != 3 {
		t.Fatalf("%d notes and %d cards, want 3 and 3", len(p.Notes), len(p.Cards))
	}
	deckID := p.Cards[0].Did
	if p.Decks[fmt.Sprint(deckID)].Name != deck.Name {
		t.Errorf("cards are in deck %d, decks %+v", deckID, p.Decks)
	}
	for i, n := range p.Notes {
		if p.Cards[i].Nid != n.ID || p.Cards[i].Ord != 0 || p.Cards[i].Type != 0 {
			t.Errorf("card %d: %+v for note %d", i, p.Cards[i], n.ID)
		}
	}
	if n := p.Notes[0]; n.Mid != anki.BasicModelID || n.Tags != " Optics::Refraction " || n.Fields[1] != "The bending of light" || n.Sfld != "What is refraction?" {
		t.Errorf("basic note: %+v", n)
	}
	if n := p.Notes[1]; n.Mid != anki.ClozeModelID || n.Fields[0] != "Light travels in straight {{c1::lines}}." {
		t.Errorf("cloze note: %+v", n)
	}
	sum := sha1.Sum([]byte("Bold & co"))
	if n := p.Notes[2]; n.Sfld != "Bold & co" || n.Csum != int64(binary.BigEndian.Uint32(sum[:4])) || p.Cards[2].Queue != -1 || p.Cards[0].Queue != 0 {
		t.Errorf("suspended note with HTML: %+v, card %+v", n, p.Cards[2])
	}
	// A later export keeps each note's guid, so Anki updates rather than adds.
	again := export()
	for i := range p.Notes {
		if p.Notes[i].GUID != again.Notes[i].GUID || p.Notes[i].GUID == "" {
			t.Errorf("note %d guid %q then %q", i, p.Notes[i].GUID, again.Notes[i].GUID)
		}
	}
	if p.Notes[0].GUID == p.Notes[1].GUID {
		t.Error("two notes share a guid")
	}
}
