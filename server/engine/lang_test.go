package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/studyloop"
)

func TestMainLanguage(t *testing.T) {
	tests := []struct {
		name, text string
		want       string
		sure       bool
	}{
		{"English", strings.Repeat("The cell is the basic unit of life, and it is made of water and the molecules that hold it together. ", 3), "English", true},
		{"German", strings.Repeat("Die Zelle ist die kleinste Einheit des Lebens, und sie besteht aus Wasser und den Molekülen, die sie zusammenhalten. ", 3), "German", true},
		{"French", strings.Repeat("La cellule est la plus petite unité de la vie, et elle est faite de l'eau et des molécules qui la tiennent. ", 3), "French", true},
		{"Spanish", strings.Repeat("La célula es la unidad más pequeña de la vida, y está hecha de agua y de las moléculas que la sostienen. ", 3), "Spanish", true},
		{"English with a Spanish glossary column", strings.Repeat("**stream** (Spanish: *flujo*): A sequential flow of data, such as the bits arriving across a network connection. ", 10), "English", true},
		{"too short to judge", "Die Zelle ist klein.", "English", false},
	}
	for _, tt := range tests {
		got, sure := mainLanguage(tt.text)
		if got != tt.want || sure != tt.sure {
			t.Errorf("%s: mainLanguage = %s, %v; want %s, %v", tt.name, got, sure, tt.want, tt.sure)
		}
	}
}

func TestNotEnglishSentence(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"Die Ribosomen sind die Orte der Proteinsynthese in der Zelle.", true},
		{"Les ribosomes sont le lieu de la synthèse des protéines.", true},
		{"Ribosomes are the sites of protein synthesis in the cell.", false},
		{"The motto of the society was e pluribus unum in those days.", false},
		{"Die Zelle.", false}, // too short to judge
	}
	for _, tt := range tests {
		if got := notEnglishSentence(tt.s); got != tt.want {
			t.Errorf("notEnglishSentence(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

// TestGermanMaterialRefused shows that material mostly not in English gets
// a reason naming its language and no questions at all.
func TestGermanMaterialRefused(t *testing.T) {
	g := mustOffline(t)
	text := strings.Repeat("Die Mitochondrien sind die Kraftwerke der Zelle. Sie erzeugen ATP aus Glukose und Sauerstoff, und die Energie wird in der Zelle genutzt. ", 6)
	ex, err := g.Generate(context.Background(), "Zellbiologie", text)
	var se *studyloop.Error
	if !errors.As(err, &se) || se.Code != studyloop.EINVALID || !strings.Contains(se.Message, "German") {
		t.Fatalf("Generate = %d questions, %v; want EINVALID naming German", len(ex.Questions), err)
	}
}
