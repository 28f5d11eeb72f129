package engine

import (
	"strings"
	"unicode"
)

// The generator writes its questions in English and reads English
// grammar. Material in another language would get questions that mix an
// English frame ("What is ...?") with foreign answers, so it is refused
// with a reason, and a foreign sentence inside English material is never
// asked about.
//
// Languages are told apart by their commonest function words, which make
// up a large share of any running text and overlap little between these
// languages.
var functionWords = map[string]map[string]bool{
	"English":    wordSet(`the of and to in is that for it with as was on are be by this which or from at an were have has not but their they its been would can will also these there when than`),
	"German":     wordSet(`der die das und ist nicht zu den von mit sich des auf für im dem ein eine einen einer eines auch es an werden aus er sie nach wird bei oder wie noch nur sind war zum zur über durch`),
	"French":     wordSet(`le la les et des est une du que dans qui pour pas au sur par plus ce sont avec il elle ne se aux ont été cette comme ou leur mais`),
	"Spanish":    wordSet(`el los las del que en y es se por con una para al lo como más pero sus le ya fue este entre cuando muy sin sobre también hasta hay donde desde está son`),
	"Italian":    wordSet(`il di che è e la per una non sono gli della delle dei nel nella con si anche come più ma alla questo essere degli stato`),
	"Portuguese": wordSet(`o os as do da dos das que em e é um uma para com não se por mais como mas foi ao ele ela seu sua são está também pelo pela`),
	"Dutch":      wordSet(`de het een en van is dat op te in zijn voor met niet aan er ook als bij door wordt om dan nog werd naar wat maar`),
}

// minLanguageWords is how many function words a text needs before its
// language is judged: a title or a short list says too little.
const minLanguageWords = 20

// mainLanguage returns the language whose function words are most
// frequent among the words of text (the first 100,000 bytes), and whether
// there were enough of them to judge.
func mainLanguage(text string) (string, bool) {
	if len(text) > 100_000 {
		text = text[:100_000]
	}
	counts := map[string]int{}
	total := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		for lang, set := range functionWords {
			if set[w] {
				counts[lang]++
				total++
			}
		}
	}
	if total < minLanguageWords {
		return "English", false
	}
	best := "English"
	for _, lang := range languageOrder {
		if counts[lang] > counts[best] {
			best = lang
		}
	}
	return best, true
}

// languageOrder makes mainLanguage deterministic when counts tie.
var languageOrder = []string{"English", "German", "French", "Spanish", "Italian", "Portuguese", "Dutch"}

// notEnglishSentence reports whether s, a prompt or a sentence of at least
// six words, reads as another language: more of its function words belong
// to one other language than to English.
func notEnglishSentence(s string) bool {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) })
	if len(words) < 6 {
		return false
	}
	counts := map[string]int{}
	for _, w := range words {
		for lang, set := range functionWords {
			if set[w] {
				counts[lang]++
			}
		}
	}
	for _, lang := range languageOrder[1:] {
		if counts[lang] >= 2 && counts[lang] > counts["English"] {
			return true
		}
	}
	return false
}
