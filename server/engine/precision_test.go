package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/lexicon"
	"github.com/studyloop/studyloop/server/studyloop"
)

func cloze(prompt, answer string) studyloop.Question {
	return studyloop.Question{Type: studyloop.QuestionCloze, Prompt: prompt, Answer: answer}
}

func shortAnswer(prompt, answer string) studyloop.Question {
	return studyloop.Question{Type: studyloop.QuestionShortAnswer, Prompt: prompt, Answer: answer}
}

func choice(prompt, answer string, choices ...string) studyloop.Question {
	return studyloop.Question{Type: studyloop.QuestionMultipleChoice, Prompt: prompt, Answer: answer, Choices: choices}
}

// TestPrecisionChecks gives each check questions it must fail and close
// neighbours it must pass, so that a check can neither go blind nor start
// dropping good questions.
func TestPrecisionChecks(t *testing.T) {
	tests := []struct {
		check string
		q     studyloop.Question
		fails bool
	}{
		// A prompt that makes sense only after the sentence before it.
		{"needs earlier sentence", cloze("It carries oxygen from the lungs to the _____.", "tissues"), true},
		{"needs earlier sentence", cloze("However, the _____ stores water in plant cells.", "vacuole"), true},
		{"needs earlier sentence", cloze("The output is cryptic because it is a series of commands for tools like _____.", "patch"), true},
		{"needs earlier sentence", cloze("The contribution to the outgoing radiation falls as the _____ rises.", "absorptivity"), true},
		{"needs earlier sentence", cloze("The output of a gene is a _____ or an RNA.", "protein"), false},
		// After a lead-in sentence, an opening "These are" or "This volume"
		// (after a figure) points at it; elsewhere it points further back.
		{"needs earlier sentence", cloze("Three codons code for no amino acid. These are called _____.", "stop codons"), false},
		{"needs earlier sentence", cloze("The ventricles hold about 130 mL at rest. This volume is known as the _____.", "end diastolic volume"), false},
		{"needs earlier sentence", cloze("The ventricles hold blood at rest. This volume is known as the _____.", "end diastolic volume"), true},
		{"needs earlier sentence", cloze("These are called _____.", "stop codons"), true},
		{"needs earlier sentence", cloze("Three codons code for no amino acid. Those are called _____.", "stop codons"), true},
		{"needs earlier sentence", cloze("The tone came before the food again and again. Thus, the tone became the _____.", "conditioned stimulus"), false},
		{"needs earlier sentence", cloze("Thus, the tone became the _____.", "conditioned stimulus"), true},
		{"needs earlier sentence", cloze("The tone came before the food again and again. The tone thus became the _____.", "conditioned stimulus"), true},
		{"needs earlier sentence", cloze("When an organism responds to stimuli like the conditioned one, it is called _____.", "stimulus generalization"), false},
		{"needs earlier sentence", cloze("When an organism responds to stimuli like the conditioned one, it shows _____.", "stimulus generalization"), true},
		{"needs earlier sentence", cloze("In addition to coding for methionine, it is called the _____.", "start codon"), true},
		{"needs earlier sentence", studyloop.Question{Type: studyloop.QuestionTermDefinition, Prompt: describePrompt("A property of a system that lets it work with an older system, or with input made for such a system."), Answer: "backward-compatible"}, false},
		{"needs earlier sentence", cloze("Such a system is called _____.", "backward-compatible"), true},
		{"needs earlier sentence", shortAnswer("Why is hydrogen an exception?", "because it is stable with two electrons"), true},
		{"needs earlier sentence", cloze("Jackson's critics, calling him a king, organized as the _____.", "Whig Party"), false},
		{"needs earlier sentence", cloze("The first, _____, occurs when total spending grows faster than output.", "demand-pull inflation"), true},
		{"needs earlier sentence", cloze("The first railway, the _____, opened in 1825.", "Stockton and Darlington"), false},
		{"needs earlier sentence", cloze("To tell which, Mendel used a _____, crossing the plant with a recessive one.", "test cross"), true},
		// A quantifier standing alone, a time counted from an earlier
		// event, "the other two", a pronoun after a date, a comparison
		// with a view the prompt does not name.
		{"needs earlier sentence", cloze("Many exit after G1 and enter a resting state called the _____.", "G0 phase"), true},
		{"needs earlier sentence", cloze("Most remain in the _____ for life.", "G0 phase"), true},
		{"needs earlier sentence", cloze("Many cells exit after G1 and enter a resting state called the _____.", "G0 phase"), false},
		{"needs earlier sentence", cloze("Most water in the cell is held in the _____.", "cytoplasm"), false},
		{"needs earlier sentence", cloze("A week later the king ordered the clergy to join the _____.", "National Assembly"), true},
		{"needs earlier sentence", cloze("Profit measured this way is called _____: revenue minus all costs.", "economic profit"), true},
		{"needs earlier sentence", cloze("This way, profit is called _____: revenue minus all costs.", "economic profit"), false},
		{"needs earlier sentence", cloze("The king ordered the other two _____ to join the Assembly.", "estates"), true},
		{"needs earlier sentence", cloze("In July 1790 it passed the _____, a law making priests officials of the state.", "Civil Constitution of the Clergy"), true},
		{"needs earlier sentence", cloze("In July 1790 the Assembly passed the _____, a law making priests officials of the state.", "Civil Constitution of the Clergy"), false},
		{"needs earlier sentence", cloze("By default it connects to _____; use --broker to connect elsewhere.", "localhost:7400"), true},
		{"points at figure or chapter", shortAnswer("What is the number 10 in Step 5 called?", "money multiplier"), true},
		{"needs earlier sentence", cloze("The exception is _____ together with files, which produces a single multipart body.", "form"), true},
		{"answer guessable", cloze("To share the same fixture with async code, create an _____ inside the test.", "AsyncClient"), true},
		{"answer guessable", cloze("Responses whose status is in _____ are retryable.", "retry_on_status"), true},
		{"answer guessable", cloze("Every request passes through the _____ before it reaches the network.", "MockTransport"), false},
		{"needs earlier sentence", cloze("The decision earned Roosevelt a reputation as a _____.", "trustbuster"), true},
		{"needs earlier sentence", cloze("The heart pumps blood through the _____.", "aorta"), false},
		{"needs earlier sentence", cloze("The Supreme Court ordered the breakup of the _____ in 1911.", "Standard Oil Company"), false},
		{"needs earlier sentence", cloze("_____ that serve different variations to randomized groups and compare outcomes.", "Experiments"), true},
		{"needs earlier sentence", cloze("_____ that bind a specific antigen are secreted by plasma cells.", "Antibodies"), false},
		{"needs earlier sentence", cloze("Much of the organization's early work was carried out by _____, a veteran organizer.", "Ella Baker"), true},
		{"needs earlier sentence", cloze("Much of the body's heat is lost through the _____.", "skin"), false},
		{"needs earlier sentence", cloze("The Fed uses it when the economy is in a recession and output is below _____.", "potential GDP"), true},
		{"needs earlier sentence", cloze("Everything else, including the container and the air, makes up the _____.", "surroundings"), true},
		{"needs earlier sentence", cloze("To head off the protest, Roosevelt created the _____ to investigate complaints.", "Fair Employment Practice Committee"), true},
		{"needs earlier sentence", cloze("To head off a protest by workers, Roosevelt created the _____ to investigate complaints.", "Fair Employment Practice Committee"), false},
		{"needs earlier sentence", cloze("In words, the _____ of a process is equal to the heat absorbed at constant pressure.", "enthalpy change"), true},
		{"needs earlier sentence", cloze("_____ — each action is started both locally and remotely, and whichever finishes first wins.", "dynamic"), true},
		{"needs earlier sentence", cloze("_____ starts each action both locally and remotely, and whichever finishes first wins.", "dynamic mode"), false},
		{"needs earlier sentence", cloze("By default the client connects to _____; use --broker to connect elsewhere.", "localhost:7400"), false},
		{"needs earlier sentence", shortAnswer("In what year did Brønsted and Lowry propose a broader view?", "1923"), true},
		{"needs earlier sentence", shortAnswer("In what year did Brønsted and Lowry propose a broader view than Arrhenius's?", "1923"), false},
		// Half a name.
		{"blank splits a phrase", cloze("The First _____ was the clergy, about 130,000 people.", "Estate"), true},
		{"blank splits a phrase", cloze("The _____ was the clergy, about 130,000 people.", "First Estate"), false},
		{"needs earlier sentence", cloze("Mating two plants that differ in a trait in this way is called _____.", "hybridization"), true},
		{"needs earlier sentence", cloze("To learn whether traits are inherited together, Mendel performed a _____.", "dihybrid cross"), false},
		{"needs earlier sentence", cloze("Critics, calling him a king, organized as the _____.", "Whig Party"), true},
		{"needs earlier sentence", cloze("Jackson's order drained bank reserves. Soon after he left office came the _____.", "Panic of 1837"), false},
		{"needs earlier sentence", shortAnswer("Why is hydrogen an exception to the octet rule?", "because it is stable with two electrons"), false},
		{"needs earlier sentence", studyloop.Question{Type: studyloop.QuestionTermDefinition, Prompt: describePrompt("other things being equal; the assumption that every influence but one stays the same"), Answer: "ceteris paribus"}, false},
		{"needs earlier sentence", cloze("Other proteins carry the _____ across the membrane.", "glucose"), true},
		{"needs earlier sentence", cloze("The _____ enables RNA polymerase to bind to a promoter, thus allowing for the transcription of genes.", "σ factor"), false},
		{"needs earlier sentence", cloze("Factors that increase contractility are described as positive inotropic factors, and those that decrease it are described as _____.", "negative inotropic factors"), false},
		{"needs earlier sentence", cloze("Primary transcripts must be processed to protect these transcripts from _____.", "degradation"), false},
		{"needs earlier sentence", cloze("Enzymes in these cells make _____.", "collagen"), true},
		{"needs earlier sentence", cloze("If the nucleotide in the third position is changed, the same _____ is still incorporated.", "amino acid"), true},
		{"needs earlier sentence", cloze("The cache sends it back in the _____ header.", "If-None-Match"), true},
		{"needs earlier sentence", cloze("With other types of _____, the interval can be up to several hours.", "conditioning"), true},
		{"needs earlier sentence", cloze("Carbohydrates form the third component: chains of sugars attached to proteins form _____.", "glycoproteins"), true},
		{"needs earlier sentence", cloze("Cells break them down into _____ before absorbing them.", "amino acids"), true},
		{"needs earlier sentence", cloze("A catalyst makes it possible for a _____ to proceed faster at a lower temperature.", "reaction"), false},
		{"needs earlier sentence", cloze("In the second phase of ventricular systole, the _____ opens.", "semilunar valve"), false},
		{"needs earlier sentence", cloze("A change in the third position of a codon often leaves the encoded _____ unchanged.", "amino acid"), false},
		{"needs earlier sentence", cloze("Blood leaves the three chambers through the _____.", "aorta"), true},
		{"points at figure or chapter", cloze("Each entry gives the English term, its _____, and a short definition.", "Spanish translation"), true},
		{"points at figure or chapter", cloze("This glossary lists the _____ of data science.", "terms"), true},
		{"needs earlier sentence", cloze("The form of _____, on the other hand, enables it to sacrifice the public good.", "popular government"), true},
		{"needs earlier sentence", cloze("A parallel story could be told of the metals unknown before the _____ dawned.", "nineteenth century"), true},
		{"needs earlier sentence", cloze("How far the demand shifts depends on the _____ of demand.", "income elasticity"), true},
		{"needs earlier sentence", cloze("A fraction of the beam is absorbed, and therefore the _____ is smaller.", "transmitted part"), true},
		{"needs earlier sentence", shortAnswer("What are the three main types of learning?", "classical conditioning, operant conditioning, and observational learning"), false},
		{"choices alike", choice("An _____ depends on the amount of matter present.", "extensive property", "chemical property", "extensive property", "intensive property", "physical property"), true},
		{"choices alike", choice("An _____ depends on the amount of matter present.", "extensive property", "extensive property", "intensive property", "elastic property", "optical property"), false},
		{"choices alike", choice("The _____ depends on the amount of matter present.", "extensive property", "chemical property", "extensive property", "intensive property", "physical property"), false},
		{"needs earlier sentence", cloze("During rest, both centers provide slight stimulation to the heart, contributing to _____.", "autonomic tone"), true},
		{"needs earlier sentence", cloze("In comparison, _____ releases ACh at the neuromuscular junction.", "parasympathetic stimulation"), true},
		{"needs earlier sentence", cloze("The enzyme copies both the leading strand and the _____ of the helix.", "lagging strand"), false},
		{"needs earlier sentence", cloze("So in our example the _____ must be warmer than the atmosphere.", "surface"), true},
		{"needs earlier sentence", cloze("Galileo's enemies would probably have objected to _____ of energy.", "conservation"), true},
		{"needs earlier sentence", cloze("For those interested, the Carpentries has a lesson on _____.", "Mercurial"), true},
		{"answer guessable", cloze("The coding stretches are the _____ (ex-on signifies that they are expressed).", "exons"), true},
		{"answer guessable", cloze("A high level of _____ in the blood (hypercalcemia) weakens the beat.", "calcium"), true},
		{"answer guessable", cloze("The –10 consensus sequence, called the _____, is TATAAT.", "TATA box"), true},
		{"answer guessable", cloze("The –10 consensus sequence, called the _____, lies before the start.", "TATA box"), false},
		{"answer guessable", cloze("The _____ (EDV) is the volume of blood in the ventricle at the end of filling.", "end diastolic volume"), false},
		{"answer word in prompt", cloze("The sixth subunit is known as sigma (σ). The _____ binds the promoter.", "σ factor"), true},
		{"answer word in prompt", cloze("The _____ lets the polymerase bind the promoter.", "σ factor"), false},
		{"answer word in prompt", cloze("A nucleotide called the _____ is added to the 5’ end of the transcript.", "5’ cap"), true},
		{"answer word in prompt", cloze("The _____, near the end of G1, is the main decision point.", "G1 checkpoint"), true},
		{"answer word in prompt", cloze("The _____ is the main decision point of the cycle.", "G1 checkpoint"), false},
		{"answer word in prompt", studyloop.Question{Type: studyloop.QuestionTermDefinition, Prompt: describePrompt("Expresses that 68% of values lie within one standard deviation, 95% within two and 99.7% within three"), Answer: "68-95-99.7 rule"}, true},
		{"answer word in prompt", studyloop.Question{Type: studyloop.QuestionTermDefinition, Prompt: describePrompt("Expresses how values of a normal distribution cluster around the mean"), Answer: "68-95-99.7 rule"}, false},
		{"answer word in prompt", cloze("A nucleotide called the _____ is added to the front of the transcript.", "5’ cap"), false},
		{"needs earlier sentence", cloze("Despite the name, the _____ is normally expressed as a percentage.", "ejection fraction"), true},
		{"needs earlier sentence", cloze("The contribution from the surface must decrease, while the contribution from the _____ must increase.", "top layer"), true},
		{"blank splits a phrase", cloze("_____ refers to the tension that the ventricles must develop to pump blood.", "Afterload"), false},
		{"blank splits a phrase", cloze("The _____ cells divide quickly.", "stem"), true},
		{"needs earlier sentence", cloze("Those cells make _____ from amino acids.", "collagen"), true},
		{"needs earlier sentence", cloze("The result that Pavlov found was called _____.", "conditioning"), false},
		{"needs earlier sentence", cloze("The amino acid bound to the _____ is also linked to the growing chain.", "P-site tRNA"), true},
		{"needs earlier sentence", cloze("The atmosphere is thus warmer than the _____ above it.", "top layer"), true},
		{"needs earlier sentence", cloze("This means that the greater the stretch of the _____, the stronger the beat.", "ventricular muscle"), true},
		{"needs earlier sentence", cloze("Both chambers are in diastole, and the _____ are open.", "atrioventricular valves"), true},
		{"needs earlier sentence", cloze("Both DNA and RNA are built from _____.", "nucleotides"), false},
		{"needs earlier sentence", cloze("Specifically, the model can be adjusted using two _____.", "parameters"), true},
		{"needs earlier sentence", cloze("In addition to preventing degradation, factors recognize the _____.", "5' cap"), true},
		{"needs earlier sentence", cloze("To allow for this, Git has a special _____ for changes.", "staging area"), true},
		{"needs earlier sentence", cloze("The atmosphere is transparent to shortwave _____ (still).", "radiation"), true},
		{"needs earlier sentence", cloze("The _____ holds small nuclear ribonucleoproteins (snRNPs).", "spliceosome"), false},
		{"needs earlier sentence", cloze("This way, the _____ keeps its shape.", "cytoskeleton"), false},
		{"needs earlier sentence", shortAnswer("The ventricles now hold about 130 mL of blood. What is this volume called?", "end diastolic volume"), false},
		{"needs earlier sentence", shortAnswer("What is this volume called?", "end diastolic volume"), true},
		{"needs earlier sentence", cloze("In E. coli, these proteins bind the _____.", "promoter"), true},
		{"needs earlier sentence", cloze("The _____, however, stays closed during filling.", "semilunar valve"), true},
		{"needs earlier sentence", cloze("By the middle of the century a network of _____ had spread over Europe.", "railways"), true},
		{"needs earlier sentence", cloze("The two _____, the tricuspid and mitral valves, are open.", "atrioventricular valves"), false},
		{"needs earlier sentence", cloze("The polysome is also called a _____ in many textbooks.", "polyribosome"), false},
		{"needs earlier sentence", cloze("Rats learn not only that _____ can be conditioned but also that learning has limits.", "taste aversion"), false},
		{"needs earlier sentence", cloze("These molecules fold into a shape set by the _____.", "amino acid sequence"), true},
		{"needs earlier sentence", cloze("The latter is made in the _____.", "nucleolus"), true},
		{"needs earlier sentence", cloze("The Calvin cycle then uses the energy to fix _____.", "carbon dioxide"), true},
		{"needs earlier sentence", cloze("The cell uses these molecules to build _____.", "proteins"), true},
		{"needs earlier sentence", cloze("As mentioned above, the _____ splits water.", "light reaction"), true},
		{"needs earlier sentence", cloze("This way, the _____ keeps its charge.", "neuron"), false},
		{"needs earlier sentence", cloze("If the price rises, then the _____ falls.", "quantity demanded"), false},
		{"needs earlier sentence", cloze("Hemoglobin carries oxygen from the lungs to the _____.", "tissues"), false},
		{"needs earlier sentence", shortAnswer("What is the thylakoid?", "a membrane sac inside a chloroplast"), false},

		{"needs earlier sentence", cloze("A second, later expedient was the establishment of _____.", "constitutional checks"), true},
		{"needs earlier sentence", cloze("In addition to coding for methionine, it serves as the _____.", "start codon"), true},
		{"needs earlier sentence", cloze("The railways reduced this _____ to a few hours.", "journey"), true},
		{"needs earlier sentence", cloze("Each codon specifies one _____.", "amino acid"), false},
		{"needs earlier sentence", cloze("Each is made of two _____.", "subunits"), true},

		// A prompt that points at what the question cannot show.
		{"points at figure or chapter", cloze("As Figure 3.2 shows, the _____ is the largest organelle.", "nucleus"), true},
		{"points at figure or chapter", cloze("The table below lists each _____.", "element"), true},
		{"points at figure or chapter", cloze("In this chapter you will learn how _____ works.", "diffusion"), true},
		{"points at figure or chapter", cloze("Exercise 4 asks for the _____ of the curve.", "slope"), true},
		{"points at figure or chapter", cloze("The periodic table arranges elements by _____.", "atomic number"), false},
		{"points at figure or chapter", cloze("A _____ is a chart of elevation on a map.", "contour line"), false},

		// An abbreviation in the prompt gives the answer away, or the other way round.
		{"abbreviation leak", cloze("_____, named for crassulacean acid metabolism, open their stomata at night.", "CAM plants"), true},
		{"abbreviation leak", cloze("Their partners, the _____ (Cdks), add phosphate groups to other proteins.", "cyclin-dependent kinases"), true},
		{"abbreviation leak", cloze("_____ open their stomata at night and fix carbon then.", "CAM plants"), false},
		{"abbreviation leak", cloze("Cells store energy as ATP, or _____.", "adenosine triphosphate"), true},
		{"abbreviation leak", cloze("Deoxyribonucleic acid, or _____, holds the genes.", "DNA"), true},
		{"abbreviation leak", cloze("The _____ measures output, and GDP per head is its ratio to population.", "gross domestic product"), true},
		{"abbreviation leak", cloze("Cells store energy as ATP, made by _____.", "mitochondria"), false},
		{"abbreviation leak", cloze("Increased levels of _____, or thyroxin, raise the heart rate.", "thyroid hormone"), true},
		{"abbreviation leak", cloze("The _____ copies DNA before division.", "polymerase"), false},

		// "What is X?" answered by something that is not a definition.
		{"not a definition", shortAnswer("What is the only remedy?", "a most serene and quiet air"), true},
		{"not a definition", shortAnswer("What is inflation?", "the main reason prices change"), true},
		{"not a definition", shortAnswer("What is the result?", "one of the reasons"), true},
		{"not a definition", shortAnswer("What is a ribosome?", "a molecular machine that builds proteins"), false},
		{"not a definition", shortAnswer("What is the velocity of money?", "the number of times the average dollar is spent in a year"), false},
		{"not a definition", shortAnswer("What is a recession?", "a number of reasons"), true},
		{"not a definition", shortAnswer("What is specific heat?", "an intensive property and is characteristic of the substance"), true},
		{"not a definition", shortAnswer("What is osmosis?", "a movement of water across a membrane"), false},
		{"not a definition", shortAnswer("What is GDP?", "total market value of final goods"), false},
		{"not a definition", shortAnswer("What is the conditioned stimulus?", "the sugary flavor and the conditioned response is nausea"), true},
		{"not a definition", shortAnswer("What is bradycardia?", "the condition in which resting rate drops below 60 bpm, and tachycardia is the condition above 100 bpm"), true},

		// A blank that is not a whole noun phrase.
		{"blank splits a phrase", cloze("The _____ membrane surrounds the cell.", "plasma"), true},
		{"blank splits a phrase", cloze("Charles _____ wrote On the Origin of Species.", "Darwin"), true},
		{"blank splits a phrase", cloze("Blood leaves through the pulmonary and _____ valves.", "aortic"), true},
		{"blank splits a phrase", cloze("The plasma membrane surrounds the _____.", "cell"), false},
		{"blank splits a phrase", cloze("In E. _____, the polymerase has six subunits.", "coli"), true},
		{"blank splits a phrase", cloze("_____ wrote On the Origin of Species.", "Charles Darwin"), false},

		// Choices a student could tell apart by form, or two right ones.
		{"choices alike", choice("Which organelle makes ATP?", "mitochondria", "mitochondria", "mitochondrion", "ribosome", "lysosome"), true},
		{"choices alike", choice("Which molecule carries genes?", "DNA", "DNA", "deoxyribonucleic acid", "lipid", "glucose"), true},
		{"choices alike", choice("Which organelle makes ATP?", "mitochondria", "mitochondria", "ribosome", "lysosome", "Golgi apparatus"), false},
		{"choices alike", choice("Which term is a general fall in prices?", "deflation", "deflation", "inflation", "recession", "tariff"), false},

		// English only.
		{"not in English", cloze("Die Ribosomen sind die Orte der _____ in der Zelle.", "Proteinsynthese"), true},
		{"not in English", cloze("Ribosomes are the sites of _____ in the cell.", "protein synthesis"), false},

		// Lectures, exercises and objectives talk to the reader.
		{"speaks to the reader", cloze("I will now show you that _____ burns with a pale flame.", "hydrogen"), true},
		{"speaks to the reader", cloze("Let's think about why the _____ cools.", "surface"), true},
		{"speaks to the reader", cloze("Explain how _____ differ from reflexes.", "instincts"), true},
		// A step of a procedure tells what to do, not what is so.
		{"speaks to the reader", cloze("Place the remaining electrons as _____ on the outer atoms.", "lone pairs"), true},
		{"speaks to the reader", cloze("If the central atom still lacks an octet, move lone pairs from _____ to form double bonds.", "outer atoms"), true},
		{"speaks to the reader", cloze("Add one electron for each negative charge on an _____.", "anion"), true},
		{"speaks to the reader", cloze("Mature rRNAs make up approximately half of each _____.", "ribosome"), false},
		{"speaks to the reader", cloze("If the central atom lacks an octet, the atom forms a _____.", "double bond"), false},
		{"speaks to the reader", cloze("Shield volcanoes grow from _____ that flows far before it cools.", "basalt lava"), false},
		{"speaks to the reader", cloze("Hydrogen burns with a pale flame in _____.", "air"), false},

		// Part of the answer shows in the prompt.
		{"answer word in prompt", cloze("Baroreceptor firing sets off the _____.", "baroreceptor reflex"), true},
		{"answer word in prompt", cloze("Stretch receptors in the atria set off the _____.", "Bainbridge reflex"), false},
		{"answer word in prompt", cloze("In _____, named for the naturalist Henry Walter Bates, a harmless species imitates a harmful one.", "Batesian mimicry"), true},
		{"answer word in prompt", cloze("Members of Congress from the South signed the declaration better known as the _____.", "Southern Manifesto"), false},
		{"answer word in prompt", cloze("The quantity of heat required to raise the temperature of an object by 1 degree is its _____.", "heat capacity"), false},
		{"answer word in prompt", cloze("To compare substances, chemists use _____, usually shortened to specific heat.", "specific heat capacity"), true},
		{"answer word in prompt", cloze("Of the two DNA strands, the template is the so-called _____.", "antisense strand"), false},
		{"answer word in prompt", shortAnswer("What is a covalent bond?", "a chemical bond that shares electrons"), false},

		// An answer a student could guess without the material.
		{"answer guessable", cloze("Nearly normal data are common, but _____ are exactly normal.", "none"), true},
		{"answer guessable", cloze("Rolled sheet iron (1728) came in the _____.", "eighteenth century"), true},
		{"answer guessable", cloze("Rolled sheet iron came in the _____.", "eighteenth century"), false},
		{"answer guessable", cloze("The governed feared the _____ who ruled them.", "rulers"), true},
		{"answer guessable", cloze("The German gained upon Britain and France after the _____.", "eighties"), true},
		{"answer guessable", cloze("Sympathetic stimulation speeds the heart, and _____ slows it.", "parasympathetic stimulation"), true},
		{"answer guessable", cloze("The governed feared the _____ above them.", "rulers"), false},
		{"answer guessable", cloze("The _____ is the learned response to the conditioned stimulus.", "conditioned response"), false},
		{"answer guessable", cloze("A special initiator tRNA carrying _____ (fMet-tRNA) starts every chain.", "N-formyl-methionine"), true},
		{"answer guessable", cloze("A special initiator tRNA carrying _____ (in bacteria) starts every chain.", "N-formyl-methionine"), false},
		{"answer guessable", cloze("The opposite of hyperthermia is called _____.", "hypothermia"), true},
		{"answer guessable", cloze("In _____, the opposite of endocytosis, a vesicle fuses with the membrane.", "exocytosis"), true},
		{"answer guessable", cloze("_____ is the form of endocytosis in which a cell takes in large particles.", "phagocytosis"), false},
		{"answer guessable", cloze("The ventricles fill for about 100 _____ after each beat.", "ms"), true},
		{"blank splits a phrase", cloze("The bell made the _____, cat, or other animal salivate.", "dog"), true},
		{"answer guessable", cloze("Blood leaves the left _____ through the aorta.", "ventricle"), false},
		{"needs earlier sentence", cloze("In that case, the _____ hears the squeak.", "cat"), true},
		{"needs earlier sentence", cloze("Any such increase raises the _____.", "stroke volume"), true},
		{"needs earlier sentence", cloze("Now, that _____ was produced by the candle.", "water"), true},
		{"needs earlier sentence", cloze("Organelles such as the _____ make ATP.", "mitochondria"), false},
		{"blank splits a phrase", cloze("A shift of the supply or _____ changes the price.", "demand curve"), true},
		{"blank splits a phrase", cloze("Economists use the term _____ to mean the amount buyers will purchase at each price.", "demand"), false},
		{"blank splits a phrase", cloze("Economists use the _____ curve to show the amount buyers will purchase at each price.", "demand"), true},
		{"blank splits a phrase", cloze("The mean and standard deviation are called the distribution's _____.", "parameters"), false},
		{"blank splits a phrase", cloze("Economists use a price _____ to show the amount buyers will purchase.", "index"), true},
		{"needs earlier sentence", cloze("The trainer rewards her whenever the _____ sits.", "dog"), true},
		{"points at figure or chapter", cloze("Elasticity between points A and B is a different _____.", "calculation"), true},
	}
	checks := map[string]PrecisionCheck{}
	for _, c := range PrecisionChecks {
		checks[c.Name] = c
	}
	for _, tt := range tests {
		c, ok := checks[tt.check]
		if !ok {
			t.Fatalf("no precision check named %q", tt.check)
		}
		if got := c.Fails(tt.q); got != tt.fails {
			t.Errorf("%s: %q (answer %q): fails %v, want %v", tt.check, tt.q.Prompt, tt.q.Answer, got, tt.fails)
		}
	}
}

// TestPrecisionProblemDropsQuestion shows that a question failing a check
// is refused by the validator the generator runs on every question.
func TestPrecisionProblemDropsQuestion(t *testing.T) {
	text := "The mitochondria make ATP. It carries energy to the cell."
	q := cloze("It carries energy to the _____.", "cell")
	q.Source = studyloop.Span{Start: len("The mitochondria make ATP. "), End: len(text)}
	if got := precisionProblem(q, tagSentence); got != "needs earlier sentence" {
		t.Errorf("precisionProblem = %q, want needs earlier sentence", got)
	}
	if err := checkQuestion(text, q, stemWord, tagSentence); err == nil {
		t.Error("checkQuestion accepted a question that needs its earlier sentence")
	}
}

func TestGenericPhrase(t *testing.T) {
	lex := lexicon.Default()
	tests := []struct {
		phrase string
		recurs int
		want   bool
	}{
		{"important role", 5, true},   // generic head
		{"different things", 9, true}, // generic head
		{"main idea", 4, true},        // generic head and modifier
		{"people", 1, true},           // one general word, said once
		{"mitochondria", 1, false},    // a term even said once
		{"price elasticity", 2, false},
		{"light reactions", 4, false}, // general words, but recurrent and unmodified
		{"Calvin cycle", 1, false},
		{"mankind", 9, true},        // people at large, however often
		{"human beings", 6, true},   // people at large, however often
		{"inventors", 2, true},      // people named in passing
		{"abolitionists", 9, false}, // people the study keeps returning to
		{"Loyalists", 2, false},     // a name
	}
	for _, tt := range tests {
		if got := genericPhrase(lex, tt.phrase, tt.recurs); got != tt.want {
			t.Errorf("genericPhrase(%q, %d) = %v, want %v", tt.phrase, tt.recurs, got, tt.want)
		}
	}
}

func TestDistractorKind(t *testing.T) {
	lex := lexicon.Default()
	tests := []struct {
		answer, distractor string
		kin                kin
		tooClose           bool
	}{
		{"amino acids", "nucleic acids", headKin, false}, // shared head noun
		{"ribosome", "mitochondrion", familyKin, false},  // WordNet co-hyponyms (organelles)
		{"inflation", "deflation", familyKin, false},
		{"ribosome", "democracy", notKin, false},
		{"eighteenth century", "sixteenth centuries", notKin, false}, // number differs
		{"car", "automobile", notKin, true},                          // synonyms
		{"dog", "animal", notKin, true},                              // one is a kind of the other
		// Kinds of one head along different lines: a weak acid donates
		// protons too; kinds along one line stay rivals.
		{"Brønsted-Lowry acid", "weak acid", headKin, true},
		{"Brønsted-Lowry acid", "Arrhenius acid", headKin, false},
		{"weak acid", "strong acid", headKin, false},
		{"DNA polymerase", "RNA polymerase", headKin, false},
		{"Fixed costs", "variable costs", headKin, false},
	}
	for _, tt := range tests {
		if got := kinship(lex, tt.answer, tt.distractor, stemWord); got != tt.kin {
			t.Errorf("kinship(%q, %q) = %v, want %v", tt.answer, tt.distractor, got, tt.kin)
		}
		if got := tooClose(lex, tt.answer, tt.distractor); got != tt.tooClose {
			t.Errorf("tooClose(%q, %q) = %v, want %v", tt.answer, tt.distractor, got, tt.tooClose)
		}
	}
}

// TestBalance runs the generator over the samples and checks the
// per-study caps the asker enforces: no answer asked more than twice, no
// distractor offered more than three times, and no emitted question failing
// a precision check.
func TestBalance(t *testing.T) {
	g := mustOffline(t)
	files, err := filepath.Glob(filepath.Join("testdata", "*.*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	files = append(files, "") // and Opticks, when present
	for _, f := range files {
		var text string
		if f == "" {
			text = opticks(t, 200_000)
			f = "Opticks"
		} else {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text = string(b)
		}
		r := Measure(text, generate(t, g, text))
		if r.TopAnswerCount > maxAnswerRepeats {
			t.Errorf("%s: answer %q asked %d times, want at most %d", f, r.TopAnswer, r.TopAnswerCount, maxAnswerRepeats)
		}
		if r.TopDistractorCount > maxDistractorUses {
			t.Errorf("%s: distractor %q offered %d times, want at most %d", f, r.TopDistractor, r.TopDistractorCount, maxDistractorUses)
		}
		for name, n := range r.Failing {
			if n > 0 {
				t.Errorf("%s: %d questions fail %q", f, n, name)
			}
		}
	}
}

// TestClozeLeavesOutAnswersOtherName: an abbreviation or other name of
// the answer in brackets after the blank would give it away; it leaves the
// prompt and becomes an accepted answer, and the question still validates.
func TestClozeLeavesOutAnswersOtherName(t *testing.T) {
	tests := []struct {
		text, answer, prompt, alternative string
	}{
		{"# Heart\n\nEach ventricle collects the **end diastolic volume** (EDV) of blood before it contracts.\n",
			"end diastolic volume", "Each ventricle collects the _____ of blood before it contracts.", "EDV"},
		{"# Translation\n\nA messenger read by several translating machines at once makes up a **polyribosome** (or polysome) in the cytoplasm.\n",
			"polyribosome", "A messenger read by several translating machines at once makes up a _____ in the cytoplasm.", "polysome"},
	}
	g := mustOffline(t)
	for _, tt := range tests {
		ex := generate(t, g, tt.text)
		found := false
		for _, q := range ex.Questions {
			if q.Answer == tt.answer && q.Type == studyloop.QuestionCloze {
				found = true
				if q.Prompt != tt.prompt || len(q.Alternatives) != 1 || q.Alternatives[0] != tt.alternative {
					t.Errorf("prompt %q, alternatives %q; want %q, [%q]", q.Prompt, q.Alternatives, tt.prompt, tt.alternative)
				}
			}
		}
		if !found {
			t.Errorf("no cloze for %q among %+v", tt.answer, ex.Questions)
		}
	}
}

// TestAnaphoricSentenceNotAsked: "The bulges ..." right after the sentence
// that introduced the bulges means nothing alone, while a sentence opening
// with a term of the study stands on its own.
func TestAnaphoricSentenceNotAsked(t *testing.T) {
	text := "# Tides\n\nThe Moon's gravity raises two bulges of ocean water on opposite sides of the Earth. " +
		"The bulges travel around the planet once every lunar day. " +
		"A spring tide comes when the Sun and the Moon line up at new moon and full moon."
	ex := generate(t, mustOffline(t), text)
	for _, q := range ex.Questions {
		if strings.HasPrefix(q.Prompt, "The bulges") || strings.HasPrefix(q.Prompt, "The _____ travel") {
			t.Errorf("asked the anaphoric sentence: %q", q.Prompt)
		}
	}
	if len(ex.Questions) == 0 {
		t.Error("no questions at all")
	}
}

// TestBoxedFeaturesNotAsked: a fourth-level heading that asks a question
// or sets a task heads a boxed feature or worked example, which gets no
// questions while the sections around it have content.
func TestBoxedFeaturesNotAsked(t *testing.T) {
	text := "# Elasticity\n\n## Demand\n\n### Price elasticity\n\n" +
		"The **price elasticity of demand** measures how strongly buyers respond when a good becomes dearer.\n\n" +
		"#### That Will Be How Much?\n\nThe streaming firm raised its monthly **subscription fee** and lost many customers within a quarter.\n\n" +
		"#### Finding the Elasticity\n\nThe **midpoint formula** divides each change by the average of its two values.\n\n" +
		"### Supply\n\nThe **price elasticity of supply** measures how quickly sellers respond when a good becomes dearer.\n\n" +
		"> **Work It Out**\n>\n> A **price ceiling** is a legal maximum on the price at which a good can be sold in a market.\n"
	ex := generate(t, mustOffline(t), text)
	for _, q := range ex.Questions {
		for _, boxed := range []string{"subscription fee", "midpoint formula", "price ceiling"} {
			if strings.Contains(q.Prompt+q.Answer, boxed) {
				t.Errorf("asked from a boxed feature: %q", q.Prompt)
			}
		}
	}
	if len(ex.Questions) == 0 {
		t.Error("no questions from the sections")
	}
}

// TestDistractorTerm: a chapter's wrong choices are phrases it marks or
// repeats; one it says once may be another name of the answer ("vagal
// stimulation" beside "parasympathetic stimulation").
func TestDistractorTerm(t *testing.T) {
	tests := []struct {
		name            string
		text            string
		recur, minRecur int
		marked          bool
		want            bool
	}{
		{"said once in a chapter", "vagal stimulation", 1, minRecurrence(chapterWords), false, false},
		{"said twice in a chapter", "vagal stimulation", 2, minRecurrence(chapterWords), false, true},
		{"marked in a chapter", "vagal stimulation", 1, minRecurrence(chapterWords), true, true},
		{"said once in a short note", "vagal stimulation", 1, minRecurrence(100), false, true},
		{"filler modifier", "slight stimulation", 4, minRecurrence(chapterWords), false, false},
		{"what is left", "remaining electrons", 4, minRecurrence(chapterWords), false, false},
		{"a count", "four electrons", 4, minRecurrence(chapterWords), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := phrase{text: tt.text, key: tt.text, stemKey: tt.text}
			a := &asker{lex: lexicon.Default(), minRecur: tt.minRecur, recur: map[string]int{p.key: tt.recur},
				marked: map[string]bool{p.stemKey: tt.marked}, genericity: map[string]bool{}}
			if got := a.distractorTerm(p); got != tt.want {
				t.Errorf("distractorTerm(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

// TestMarkedOrSpecific: in a study that marks its terms, an unmarked
// keyphrase is blanked only when it names something specific in more than
// one word.
func TestMarkedOrSpecific(t *testing.T) {
	many := map[string]bool{}
	for i := range markedSome {
		many[fmt.Sprintf("term%d", i)] = true
	}
	many["promot"] = true
	tests := []struct {
		phrase, stemKey string
		marked          map[string]bool
		want            bool
	}{
		{"promoters", "promot", many, true},               // marked
		{"atrial systole", "atrial systol", many, true},   // "atrial" is no everyday word
		{"friction", "friction", many, false},             // one unmarked word
		{"moon rock", "moon rock", many, false},           // everyday words only
		{"friction", "friction", map[string]bool{}, true}, // the study marks nothing
		{"changes", "chang", map[string]bool{}, false},    // an everyday word, though the study marks nothing
		{"moon rock", "moon rock", map[string]bool{}, true},
	}
	for _, tt := range tests {
		a := &asker{lex: lexicon.Default(), marked: tt.marked}
		if got := a.markedOrSpecific(phrase{text: tt.phrase, stemKey: tt.stemKey}); got != tt.want {
			t.Errorf("markedOrSpecific(%q) = %v, want %v", tt.phrase, got, tt.want)
		}
	}
}

// TestClassNames: a phrase that ends two bold terms or more names their
// class, and is no wrong choice beside one of them.
func TestClassNames(t *testing.T) {
	tests := []struct {
		marks []string
		want  []string // class names among "gas law", "law", "blood pressure", "Boyle's law"
	}{
		{[]string{"ideal gas law", "combined gas law", "Boyle's law"}, []string{"gas law"}},
		{[]string{"ideal gas laws", "combined gas law"}, []string{"gas law"}},
		{[]string{"blood pressure", "high blood pressure", "Boyle's law"}, nil},
		{[]string{"ideal gas law"}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.marks, ", "), func(t *testing.T) {
			var marks []markedTerm
			for _, m := range tt.marks {
				marks = append(marks, markedTerm{text: m, key: stemKey(m, stemWord)})
			}
			names := classNames(marks, stemWord)
			var got []string
			for _, p := range []string{"gas law", "law", "blood pressure", "Boyle's law"} {
				if names[stemKey(p, stemWord)] {
					got = append(got, p)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("class names %q, want %q", got, tt.want)
			}
		})
	}
}
