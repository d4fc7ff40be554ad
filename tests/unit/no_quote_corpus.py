"""A labelled corpus for the no-quote check: notes, and texts that quote them or do not.

The notes are written for this corpus from public-domain books (Darwin, *On the Origin of
Species*, 1859; Adam Smith, *The Wealth of Nations*, 1776; J. S. Mill, *On Liberty*, 1859;
Seneca, *On the Shortness of Life*). Each case says whether it quotes the note and how:

- ``verbatim``: a run of the note's words, as is, often inside a question;
- ``case_punct``: the same, with case, punctuation or spacing changed;
- ``lookalike``: the same, with look-alike letters, accents, curly quotes or full-width text;
- ``paraphrase``: a sentence of the note with a word or two swapped;
- ``honest``: a fair question that shares only topic words with the note (must pass).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CorpusNote:
    title: str
    body: str
    assertions: tuple[str, ...]


@dataclass(frozen=True)
class Case:
    note: str
    kind: str
    text: str

    @property
    def quotes(self) -> bool:
        return self.kind != "honest"


NOTES = {
    "selection": CorpusNote(
        title="Natural selection",
        body=(
            "Darwin starts from what breeders already knew. Individuals of the same species "
            "differ slightly from one another, and many of those differences are passed on to "
            "their offspring. Every species produces far more young than can possibly survive, "
            "so there is a constant struggle for existence among them. Any variation that gives "
            "an individual even a small advantage in that struggle makes it more likely to live "
            "long enough to breed. Over many generations the favourable variations accumulate "
            "and the unfavourable ones disappear. Darwin calls this preservation of favourable "
            "variations natural selection, and he insists that it works slowly, by the "
            "addition of tiny steps, never by sudden leaps. Given enough time it can produce "
            "organs as complex as the eye."
        ),
        assertions=(
            "Individuals within a species vary, and much of that variation is inherited.",
            "More offspring are born than can survive, which causes a struggle for existence.",
            "Variations that help survival and breeding accumulate over generations.",
            "Natural selection acts slowly through small successive changes, not sudden jumps.",
        ),
    ),
    "labour": CorpusNote(
        title="Division of labour",
        body=(
            "Smith opens with a pin factory. One worker doing every step alone could hardly "
            "make twenty pins a day, but when the work is split into about eighteen distinct "
            "operations, ten workers together make upwards of forty-eight thousand pins a day. "
            "He gives three reasons for this growth in productivity. First, each worker gains "
            "dexterity by repeating one simple task. Second, no time is lost in passing from "
            "one kind of work to another. Third, a worker focused on one operation is more "
            "likely to invent machines that make that operation easier. The division of labour "
            "is limited by the extent of the market: in a small village nobody can live by "
            "making only nails, because there are not enough buyers."
        ),
        assertions=(
            "Splitting work into specialised tasks multiplies what each worker produces.",
            "Specialisation raises output through dexterity, saved time and new machines.",
            "How far labour can be divided depends on the size of the market.",
        ),
    ),
    "liberty": CorpusNote(
        title="The harm principle",
        body=(
            "Mill argues that the only purpose for which power can be rightfully exercised over "
            "any member of a civilised community, against his will, is to prevent harm to "
            "others. A person's own good, either physical or moral, is not a sufficient "
            "warrant. Society may advise, persuade or entreat someone, but it may not compel "
            "them for their own sake. Over his own body and mind, the individual is sovereign. "
            "Mill applies the principle to adults only; children and those who still need care "
            "must be protected from their own actions. He also defends freedom of opinion, "
            "because a silenced opinion may be true, and even a false one keeps the truth from "
            "becoming a dead dogma."
        ),
        assertions=(
            "Society may only coerce a person to prevent harm to others.",
            "A person's own good is not enough reason to compel them.",
            "The principle applies to adults, not to children.",
            "Silencing an opinion is wrong because it may be true or may keep truth alive.",
        ),
    ),
    "seneca": CorpusNote(
        title="On the shortness of life",
        body=(
            "Seneca denies that life is short. It is long enough, he says, if the whole of it "
            "is well invested; we make it short by wasting it. People guard their money and "
            "property carefully but give away their time to anyone who asks, as if time cost "
            "nothing. The busy man is busy with everything except living, and he postpones "
            "life until retirement, which may never come. The past is the part of life that is "
            "certain and cannot be taken from us, but only someone with a calm mind can return "
            "to it. Those who spend their time with philosophy and the great thinkers of the "
            "past add every age to their own."
        ),
        assertions=(
            "Life is not short; we make it short by wasting it.",
            "People guard their property but give away their time freely.",
            "Postponing real living until later is a common mistake.",
            "Studying the great thinkers of the past adds their ages to our own.",
        ),
    ),
}

CASES = (
    # --- natural selection ---------------------------------------------------------------
    Case(
        "selection",
        "verbatim",
        "Why does Darwin say that every species produces far more young than can possibly survive?",
    ),
    Case(
        "selection",
        "verbatim",
        "Explain this: over many generations the favourable "
        "variations accumulate and the unfavourable ones disappear.",
    ),
    Case(
        "selection",
        "verbatim",
        "What does it mean that natural selection works slowly, by "
        "the addition of tiny steps, never by sudden leaps?",
    ),
    Case("selection", "case_punct", "WHY is there a CONSTANT struggle-for-existence among them?!"),
    Case(
        "selection",
        "case_punct",
        "Explain: 'individuals of the same species differ slightly, from one another'...",
    ),
    Case(
        "selection",
        "lookalike",
        "Why dоеs аny vаriаtion that gives аn individuаl even а small аdvantage mattеr?",
    ),
    Case(
        "selection",
        "lookalike",
        "Explain “Darwin calls this préservation of favourable "
        "variations ‘natural selection’” — in your own words.",
    ),
    Case(
        "selection",
        "paraphrase",
        "Why does each species produce many more young than can "
        "possibly survive, so there is a constant fight for existence among them?",
    ),
    Case(
        "selection",
        "paraphrase",
        "Individuals within a species differ, and much of that "
        "variation is inherited: explain why this matters.",
    ),
    Case(
        "selection",
        "paraphrase",
        "How do variations that aid survival and breeding accumulate over generations?",
    ),
    Case(
        "selection",
        "honest",
        "In your own words, how can small differences between "
        "animals lead to new species over a very long time?",
    ),
    Case(
        "selection",
        "honest",
        "Why did Darwin think natural selection could build something as intricate as an eye?",
    ),
    Case(
        "selection",
        "honest",
        "A farmer breeds only the fastest-growing pigs each year. "
        "What would you expect after fifty years, and why?",
    ),
    Case("selection", "honest", "What is the struggle for existence, and where does it come from?"),
    Case("selection", "honest", "Give an example from everyday life of variation being inherited."),
    Case(
        "selection",
        "honest",
        "How is natural selection different from a breeder choosing which animals mate?",
    ),
    Case(
        "selection",
        "honest",
        "Predict what happens to a population of moths when the trees they rest on turn dark.",
    ),
    Case(
        "selection",
        "honest",
        "What is the struggle for existence that Darwin describes, and who takes part in it?",
    ),
    Case(
        "selection",
        "honest",
        "How do favourable variations spread through a population over many generations?",
    ),
    Case("selection", "honest", "Why did Darwin insist that natural selection works slowly?"),
    Case("selection", "honest", "How does the struggle for existence relate to natural selection?"),
    # --- division of labour ----------------------------------------------------------------
    Case(
        "labour",
        "verbatim",
        "Why could one worker doing every step alone hardly make twenty pins a day?",
    ),
    Case(
        "labour", "verbatim", "How is the division of labour limited by the extent of the market?"
    ),
    Case(
        "labour",
        "case_punct",
        "Explain why NO TIME is lost in passing from one kind of work to another...",
    ),
    Case(
        "labour",
        "case_punct",
        "why is a worker, focused on one operation, more likely to invent machines?",
    ),
    Case(
        "labour",
        "lookalike",
        "Why could ten workers togéther make upwards of forty‑eight thousand pins a day?",
    ),
    Case(
        "labour",
        "lookalike",
        "Ｅｘｐｌａｉｎ ｗｈｙ ｅａｃｈ ｗｏｒｋｅｒ ｇａｉｎｓ "
        "ｄｅｘｔｅｒｉｔｙ ｂｙ ｒｅｐｅａｔｉｎｇ ｏｎｅ ｓｉｍｐｌｅ ｔａｓｋ.",
    ),
    Case(
        "labour",
        "paraphrase",
        "Why, in a small town, can nobody live by making only "
        "nails, because there are not enough customers?",
    ),
    Case(
        "labour",
        "paraphrase",
        "Explain how splitting work into specialised jobs multiplies what each worker produces.",
    ),
    Case(
        "labour",
        "paraphrase",
        "Why does specialisation raise output through skill, saved time and new machines?",
    ),
    Case(
        "labour",
        "honest",
        "Why might a team that splits a job into small steps produce "
        "more than the same people working alone?",
    ),
    Case(
        "labour",
        "honest",
        "Give an example of specialisation in a modern kitchen and explain what it gains.",
    ),
    Case("labour", "honest", "What limits how far a small island economy can specialise?"),
    Case(
        "labour",
        "honest",
        "Contrast a craftsman who builds a whole chair with a "
        "furniture factory. Which produces more chairs per person, and why?",
    ),
    Case(
        "labour",
        "honest",
        "Predict what happens to a bakery's output if each baker "
        "switches between tasks every few minutes.",
    ),
    Case("labour", "honest", "How does the pin factory example show the benefit of dividing work?"),
    Case("labour", "honest", "What does Smith mean by the extent of the market?"),
    Case("labour", "honest", "How do dexterity and saved time each raise the output of a worker?"),
    Case("labour", "honest", "Why does repeating one simple task make a worker faster?"),
    Case(
        "labour",
        "honest",
        "Explain how the division of labour can lead to new machines being invented.",
    ),
    # --- harm principle ----------------------------------------------------------------------
    Case(
        "liberty",
        "verbatim",
        "Is it true that the only purpose for which power can be "
        "rightfully exercised over any member of a civilised community is to prevent harm?",
    ),
    Case(
        "liberty",
        "verbatim",
        "Why does Mill say that over his own body and mind, the individual is sovereign?",
    ),
    Case(
        "liberty",
        "case_punct",
        "A person's OWN GOOD — either physical, or moral — is not a sufficient warrant: why not?",
    ),
    Case(
        "liberty",
        "lookalike",
        "Why may society аdvise, persuаde or entreаt someone, but "
        "not compel them for their own sаke?",
    ),
    Case(
        "liberty",
        "paraphrase",
        "Why does Mill claim the principle applies to grown-ups "
        "only, and that children must be protected from their own actions?",
    ),
    Case(
        "liberty",
        "paraphrase",
        "Why is silencing an opinion wrong because it may be true or may keep truth alive?",
    ),
    Case(
        "liberty",
        "paraphrase",
        "Explain why society may only coerce a person to prevent injury to others.",
    ),
    Case(
        "liberty",
        "honest",
        "When, according to the harm principle, may a government "
        "stop an adult from doing something?",
    ),
    Case(
        "liberty",
        "honest",
        "Give an example of a law that the harm principle would reject, and explain why.",
    ),
    Case("liberty", "honest", "Why would Mill treat a child differently from an adult?"),
    Case("liberty", "honest", "How can a false opinion still be useful to a society?"),
    Case(
        "liberty",
        "honest",
        "Contrast persuading someone with compelling them. Which does Mill allow, and when?",
    ),
    Case(
        "liberty",
        "honest",
        "Predict how Mill would judge a ban on dangerous hobbies such as free climbing.",
    ),
    Case("liberty", "honest", "What is the harm principle, and to whom does it apply?"),
    Case("liberty", "honest", "Why does Mill separate harm to others from a person's own good?"),
    Case("liberty", "honest", "Why does Mill call the individual sovereign over his own body?"),
    Case("liberty", "honest", "Why is a silenced opinion a loss even when it is false?"),
    Case("liberty", "honest", "What may society do to someone for their own good, if anything?"),
    # --- Seneca --------------------------------------------------------------------------------
    Case(
        "seneca",
        "verbatim",
        "Why does Seneca say that life is long enough if the whole of it is well invested?",
    ),
    Case(
        "seneca",
        "verbatim",
        "What does it mean that the busy man is busy with everything except living?",
    ),
    Case(
        "seneca",
        "case_punct",
        "Why do people guard their money & property carefully, "
        "but give away their TIME to anyone who asks?",
    ),
    Case(
        "seneca",
        "lookalike",
        "Why is the pаst the pаrt of life thаt is certаin and cannot be tаken from us?",
    ),
    Case(
        "seneca",
        "paraphrase",
        "Why do we make life short by wasting it, rather than life being short?",
    ),
    Case("seneca", "paraphrase", "Why is postponing real living until later a common error?"),
    Case(
        "seneca",
        "paraphrase",
        "How does studying the great thinkers of the past add their ages to our own?",
    ),
    Case(
        "seneca",
        "honest",
        "Why does Seneca think we should treat our time more carefully than our money?",
    ),
    Case(
        "seneca",
        "honest",
        "Give an example of someone postponing their life, and say what Seneca would tell them.",
    ),
    Case(
        "seneca", "honest", "How can reading old philosophers make a life longer, in Seneca's view?"
    ),
    Case("seneca", "honest", "Contrast a busy life with a long life. Are they the same thing?"),
    Case(
        "seneca",
        "honest",
        "Predict what Seneca would say about someone who checks their phone all day.",
    ),
    Case("seneca", "honest", "Is life short? Explain Seneca's answer in your own words."),
    Case("seneca", "honest", "Why does Seneca say the busy man is not really living?"),
    Case(
        "seneca",
        "honest",
        "What part of life is certain, according to Seneca, and who can return to it?",
    ),
    Case("seneca", "honest", "How do we waste our time without noticing, in Seneca's view?"),
)
