"""Pay said with currencies beyond $/€/£ and without a pay word (issue 14): the regex tier's money
becomes the parse's money, an amount marked as pay by its own words is a salary, and pay earned in
the past is history; on the real English pipeline through the spaCy tier."""

from __future__ import annotations

import pytest

from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.records import Message
from tests.fixtures.common import said_by, spoken


def pay(tier: SpacyTier, text: str) -> set[tuple[str, str]]:
    return said_by(tier, text, "Ro")


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My salary here is AED 11,500 monthly.", ("has-salary", "AED 11,500")),
        ("I earn Rs 45,000 a month at the clinic.", ("has-salary", "Rs 45,000")),
        ("also salary is 19k reais per month", ("has-salary", "19k reais")),
        ("band 5 so about 33k before tax", ("has-salary", "33k")),
        ("I got an offer from Freshworks. 18 LPA CTC", ("has-salary-offer", "18 LPA")),
        ("I earned 40k at my old job.", ("earned", "40k")),
        ("I was on £30,000 before.", ("earned", "£30,000")),  # pay that was: history, not the salary now
        ("I was on £41k at my last place.", ("earned", "£41k")),
        ("The ESB pension comes to about €1,950 a month.", ("has-salary", "€1,950")),  # a retiree's income
        ("The pension went up to €2,040 a month in January.", ("has-salary", "€2,040")),
        (
            "Acme Logistics offered me the dispatcher job!! 50k salary, M-F 7 to 4.",
            ("has-salary-offer", "50k"),
        ),
        ("Acme Logistics offered me the dispatcher job!! 50k salary.", ("has-offered-role", "dispatcher")),
        ("doing an internship at Zoho, stipend 40k per month", ("has-salary", "40k")),  # noun onto amount
        ("I'm on £38,000 now.", ("has-salary", "£38,000")),  # "on" hung on the amount, not on "am"
        ("i'm on $95,000 a year", ("has-salary", "$95,000")),
        ("I'm on 95 grand now but the mortgage eats the lot.", ("has-salary", "95 grand")),  # tagged a date
        ("I'm on about forty two grand now", ("has-salary", "forty two grand")),
        (
            "I'm a registered nurse at St Vincent's, earning A$98,000.",
            ("has-salary", "A$98,000"),
        ),  # was 98,000
        ("my salary is NZ$85,000", ("has-salary", "NZ$85,000")),
        (
            "I've been a site manager with Persimmon since 2018, basic £52,000 plus bonus.",
            ("has-salary", "£52,000"),
        ),
        ("Currently on 38k.", ("has-salary", "38k")),  # "I'm" dropped
        ("On 41k now which is nice.", ("has-salary", "41k")),
        ("still on about £45,000", ("has-salary", "£45,000")),
        # a bare number by a period of work, "on" hung on "am"
        ("I'm on 31,500 a year, which isn't much in London", ("has-salary", "31,500")),
        ("I was on 28,000 a year at Boots", ("earned", "28,000")),
        ("im on 850 a week after tax", ("has-take-home-pay", "850")),
        ("I make 16.50 an hour.", ("has-salary", "16.50")),  # the amount parsed a clause's subject
        ("i make 22 an hour", ("has-salary", "22")),
        ("Now on £14.20 an hour.", ("has-salary", "£14.20")),  # the "£" before the number
        ("On 12.50 an hour at the moment.", ("has-salary", "12.50")),  # an hourly wage, tagged a time
    ],
)
def test_pay_is_read_whatever_its_currency_or_wording(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in pay(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "the car was 20k before tax",  # a price
        "the flat is AED 4,200 before tax, is that normal?",  # a question about rent
        "if they offered 18 LPA I'd take it",  # a hypothetical
        "her salary 50k, mine less",  # hers
        "salary 50k would be nice",  # a wish
        "The car was 20 grand.",
        "On 5k steps a day now.",  # one is on other things than pay
        "I'm on 10,000 steps a day now",
        "she's on 40,000 a year",  # hers
        "I make 3 a week, cakes mostly",  # a count, no pay
        "Currently on a 6k loan.",
        "On 2k for the flat, is that a lot?",
    ],
)
def test_an_amount_that_is_no_pay_is_no_salary(tier: SpacyTier, text: str) -> None:
    assert not {p for p, _ in pay(tier, text) if p in {"has-salary", "earned"}}


def test_the_amount_keeps_its_currency_code_as_one_mention(tier: SpacyTier) -> None:
    (extraction,) = tier.extract([Message(id="m", text="offer from feedzai, 62k euro per year", role="user")])
    assert ("62k euro", "money") in {(m.value, m.type) for m in extraction.mentions}
    assert not any(m.value == "62k" and m.type == "location" for m in extraction.mentions)


@pytest.mark.parametrize(
    ("text", "amount"),
    [("They've put me on 14.50 an hour.", "14.50"), ("We pay 1,200 a month for the flat.", "1,200")],
)
def test_an_amount_per_hour_or_month_the_model_calls_a_date_is_money(
    tier: SpacyTier, text: str, amount: str
) -> None:
    (extraction,) = tier.extract([Message(id="m", text=text, role="user")])
    mentions = {(m.value, m.type) for m in extraction.mentions}
    assert (amount, "money") in mentions, mentions
    assert not any(m.type == "date" for m in extraction.mentions), mentions


@pytest.mark.parametrize(
    ("text", "money"),
    [
        ("They're giving me 52k if I take it.", True),  # a bare amount in thousands the model calls a number
        ("We hit 50k followers on the shop's page.", False),  # it qualifies a noun
    ],
)
def test_a_bare_amount_in_thousands_is_money(tier: SpacyTier, text: str, money: bool) -> None:
    (extraction,) = tier.extract([Message(id="m", text=text, role="user")])
    assert any(m.type == "money" for m in extraction.mentions) is money, extraction.mentions


def test_times_a_day_are_no_money(tier: SpacyTier) -> None:
    (extraction,) = tier.extract([Message(id="m", text="She takes 2 tablets a day.", role="user")])
    assert not any(m.type == "money" for m in extraction.mentions)


def test_the_employers_counter_and_a_bare_yes_to_it_are_an_offer_and_its_acceptance(tier: SpacyTier) -> None:
    said = pay(
        tier, "I asked for 54 and he came back with 52k plus on call pay. I said yes!! start date is May 13"
    )
    assert {("has-salary-offer", "52k"), ("accepted-offer", "offer")} <= said


@pytest.mark.parametrize(
    "text",
    [
        "He proposed last night and I said yes!!",  # no job in the message
        "I came back with 2k of shopping, oops",  # the speaker's own haul
    ],
)
def test_a_yes_or_a_coming_back_that_is_no_job_says_nothing_of_one(tier: SpacyTier, text: str) -> None:
    assert not {p for p, _ in pay(tier, text) if p in {"accepted-offer", "has-salary-offer"}}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My take home is about £2,080.", ("has-take-home-pay", "£2,080")),
        ("Also my first Band 4 payslip came, £1,862 after tax.", ("has-take-home-pay", "£1,862")),
        ("so about 33k after tax", ("has-take-home-pay", "33k")),
        ("On £2,400 a month after tax.", ("has-take-home-pay", "£2,400")),
    ],
)
def test_pay_after_tax_is_take_home_not_the_salary(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    facts = pay(tier, text)
    assert fact in facts
    assert not {o for p, o in facts if p == "has-salary"}


def test_a_pension_beside_a_home_is_income_not_rent(tier: SpacyTier) -> None:
    facts = pay(tier, "I'm in the same house since 1974. The pension comes to about €1,950 a month.")
    assert ("has-salary", "€1,950") in facts
    assert not {o for p, o in facts if p == "has-rent"}


@pytest.mark.parametrize(
    ("text", "salary"),
    [
        ("Starting at Amazon in April as a shift manager, 34k.", "34k"),  # '34k' tagged a date
        ("I start at Acme on Monday as a data analyst, £41,000.", "£41,000"),
        ("senior QA engineer from 1 april. R46k!!", "R46k"),  # the amount the next line
        ("New job at Acme. 34k!", "34k"),
    ],
)
def test_an_amount_listed_after_a_new_job_is_its_pay(tier: SpacyTier, text: str, salary: str) -> None:
    assert ("has-salary", salary) in pay(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I joined Stripe last week, 2024.",  # a year
        "Starting at Amazon in April, 34k miles on the car though.",  # miles, not pay
        "Dan starts at Amazon in April, 34k.",  # his job: whose pay is unsaid
        "Dan got a job at Acme. 34k!",  # his again, the amount its own line
        "I love my job at Acme. We raised 34k for charity.",  # not a line of its own
    ],
)
def test_no_pay_after_a_job_where_the_amount_is_not_listed_alone_for_the_speaker(
    tier: SpacyTier, text: str
) -> None:
    assert not {p for p, _ in pay(tier, text) if p.startswith("has-salary")}


@pytest.mark.parametrize(
    ("text", "rent"),
    [
        ("We pay £1,450 rent.", "£1,450"),
        ("I pay 900 in rent.", "900"),
        ("Rent on the new place is 1350.", "1350"),
        ("The house costs 1,100 a month.", "1,100"),  # a home's cost by the month
        ("Our landlord wants 1,500 now.", "1,500"),  # what the landlord asks
        ("The landlord is charging £1,200.", "£1,200"),
        ("Rent went from £900 to £1,000.", "£1,000"),  # the range parsed as one amount
        # an amount paid, alone, right after a line about the speaker's home
        ("Our apartment in St-Boniface is 2 bedroom, it is too small now. We pay $1,450.", "$1,450"),
    ],
)
def test_rent_paid_or_said_of_a_place_is_the_rent(tier: SpacyTier, text: str, rent: str) -> None:
    assert ("has-rent", rent) in pay(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "We pay £30 for parking.",
        "We paid £1,200 rent in London.",
        "The flat costs £200 a year to heat.",  # no month: a running cost
        "The flat cost £250,000.",  # a price
        "A new boiler costs £2,000.",
        "My sister's flat costs 900 a month.",  # hers
        "Our landlord wants us out.",
        "My agent wants £5,000 for the book.",  # not a letting agent
        "Our flat is small. We pay 200 for parking.",  # what it pays for is said
        "Our house is nice. We pay the cleaner 300.",
    ],
)
def test_no_rent_from_other_costs_or_rent_paid_before(tier: SpacyTier, text: str) -> None:
    assert not {p for p, _ in pay(tier, text) if p == "has-rent"}


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("I get paid £11.44 an hour.", "£11.44"),
        ("I'm paid 32k.", "32k"),
        ("They pay £12 an hour, which is rubbish.", "£12"),  # an employer's "they"
        ("I'm on 12.50 an hour.", "12.50"),  # hourly: pay without its sign
        ("It pays £600 a week.", "£600"),  # the job's "it"
        ("I'm getting 12.21 an hour now.", "12.21"),  # got by a period of work
        ("I get £600 a week.", "£600"),
        ("Got a raise to 48k!", "48k"),  # the "I" dropped before "got"
        ("Got a pay rise to £40,000.", "£40,000"),
    ],
)
def test_pay_by_its_period_to_the_speaker(tier: SpacyTier, text: str, amount: str) -> None:
    assert ("has-salary", amount) in said_by(tier, text, "Lin")


@pytest.mark.parametrize(
    "text",
    [
        "They pay £5 for parking.",
        "I get paid £50 for the shift.",
        "I'm on 12 tablets a day.",
        "I'm getting 3 hours a week.",  # a count, not money
        "I got £50 for my birthday.",  # no period of work
        "It pays 30k.",  # an "it" that may be anything, with no period
        "I used to get 9.50 an hour.",  # a rate that was
    ],
)
def test_no_pay_from_a_fee_a_one_off_or_a_dose(tier: SpacyTier, text: str) -> None:
    assert not [p for p, _ in said_by(tier, text, "Lin") if p == "has-salary"]


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("Going part-time would mean a pay cut from £52,000.", "£52,000"),  # a cut weighed: the pay now
        ("I'd be taking a pay cut from 48k if I moved.", "48k"),
        ("I took a pay cut to £35k when I moved.", "£35k"),  # a cut taken: the pay it left
    ],
)
def test_a_pay_cut_says_the_pay(tier: SpacyTier, text: str, amount: str) -> None:
    assert ("has-salary", amount) in said_by(tier, text, "Lin")


def test_someone_elses_pay_cut_is_not_the_speakers(tier: SpacyTier) -> None:
    said = said_by(tier, "He'd be taking a pay cut from £50k, poor guy.", "Lin")
    assert not [p for p, _ in said if p == "has-salary"]


def test_living_off_a_pension_is_no_home(tier: SpacyTier) -> None:
    said = said_by(tier, "I live off my pension from Shell these days.", "Lin")
    assert not [o for p, o in said if p.startswith("lives") and o == "Shell"]


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My salary was 50k but it's 55k now.", ("has-salary", "55k")),
        (
            "I told you the ESB pension was €1,950, and it was, but there was an increase from the first "
            "of March and it's €2,040 a month now.",
            ("has-salary", "€2,040"),
        ),
        ("Our rent went up again, it's £1,250 now.", ("has-rent", "£1,250")),
        ("I'll be late with the rent this month (it's $1,980).", ("has-rent", "$1,980")),
    ],
)
def test_it_is_the_pay_or_rent_the_message_spoke_of(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in pay(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "What's the state pension going up to in April? I heard it's around £230 a week.",  # anyone's
        "Rent is £1,200 and council tax is awful, it's £180 a month.",  # "it" is the tax
        "My salary is fine. The car needs work, it's £900 for the clutch.",  # the repair
        "My sister's rent went up, it's £1,100 now.",  # hers
    ],
)
def test_it_is_no_pay_or_rent_when_something_else_came_between(tier: SpacyTier, text: str) -> None:
    facts = pay(tier, text)
    assert not {f for f in facts if f[0] == "has-salary" and f[1] in {"£230", "£900"}}
    assert ("has-rent", "£180") not in facts and ("has-rent", "£1,100") not in facts


@pytest.mark.parametrize(
    ("text", "fact", "not_now"),
    [
        ("My salary was 50k when I started.", ("earned", "50k"), ("has-salary", "50k")),
        ("My salary at Zoho was 40k.", ("earned", "40k"), ("has-salary", "40k")),
        ("My manager was Bruno.", ("had-manager", "Bruno"), ("has-manager", "Bruno")),
        ("My rent was £900 back then.", ("had-rent", "£900"), ("has-rent", "£900")),
    ],
)
def test_a_value_said_in_the_past_is_history(
    tier: SpacyTier, text: str, fact: tuple[str, str], not_now: tuple[str, str]
) -> None:
    facts = pay(tier, text)
    assert fact in facts and not_now not in facts


def test_a_flat_seen_in_the_line_before_is_the_home_its_monthly_amount_pays_for(tier: SpacyTier) -> None:
    text = (
        "We went to see the apartment on Saturday. Two bedrooms, a balcony that looks out to the bay if you "
        "lean out far enough, and they take small pets. It's €1,650 a month."
    )
    assert ("has-rent", "€1,650") in pay(tier, text)
    assert not {
        f
        for f in pay(tier, "If we took the flat in Leith we'd manage. It's £1,200 a month.")
        if f[0] == "has-rent"
    }


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I work at Tesco and the pay is 24k", ("Ro", "has-salary", "24k")),
        ("my manager is dave and my salary is 24k", ("Ro", "has-salary", "24k")),
        (
            "I earn $126,500 now, and Marc's salary at Stantec is around $112,000.",
            ("Marc", "has-salary", "$112,000"),
        ),
    ],
)
def test_a_value_in_a_second_clause_whose_subject_is_a_noun_is_read(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    (ex,) = tier.extract([Message(id="m", text=text, role="user", speaker="Ro")])
    assert fact in {(f.subject, f.predicate, f.object) for f in ex.facts}


@pytest.mark.parametrize(
    ("text", "rent"),
    [("paying 950 for the flat", "950"), ("We pay £1,100 for the house, bills extra.", "£1,100")],
)
def test_an_amount_paid_for_the_home_is_the_rent(tier: SpacyTier, text: str, rent: str) -> None:
    """Chat's dropped "I'm" too ("paying 950 ..."): the amount was read only beside the word rent."""
    assert ("has-rent", rent) in said_by(tier, text, "Priya")


def test_an_amount_paid_for_a_thing_is_no_rent(tier: SpacyTier) -> None:
    assert not {f for f in said_by(tier, "I paid 900 for the sofa", "Priya") if f[0] == "has-rent"}


@pytest.mark.parametrize(
    ("text", "rent"),
    [
        ("rent's gone up to 1,250", "1,250"),  # "'s" = has, and a bare number after "rent ... to"
        ("landlord put the rent up to 1450", "1450"),  # "to" hung on "up"
        ("rent went from 900 to 975", "975"),
        ("they increased the rent to 1,500", "1,500"),
        ("we're paying £950 pcm now", "£950"),  # pcm: rent's own unit
        ("we pay 1800/month for a 2 bed", "1800"),
        ("The unit is $480 a week, which is fine.", "$480"),  # rents are weekly in Australia
        ("It's a 2 bed townhouse, $560 per week.", "$560"),
    ],
)
def test_rent_as_chat_says_its_change_or_its_unit(tier: SpacyTier, text: str, rent: str) -> None:
    assert ("has-rent", rent) in pay(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I pay £140 pcm for my phone",  # pcm for something else
        "rent's due on Friday",  # no amount
        "my sister's rent went up to 1,200",  # someone else's
        "We spend $150 a week on groceries, the flat is small so we shop often",  # spent, not rent
    ],
)
def test_no_rent_from_another_monthly_cost_or_anothers_rent(tier: SpacyTier, text: str) -> None:
    assert not {f for f in pay(tier, text) if f[0] == "has-rent"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("take home is 2,900 a month", ("has-take-home-pay", "2,900")),
        ("my take home is about 2,900 a month", ("has-take-home-pay", "2,900")),  # was "Home", a name
        ("they bumped me to 52k", ("has-salary", "52k")),
        ("they put me up to 48k in March", ("has-salary", "48k")),
    ],
)
def test_take_home_said_and_a_raise_given_to_me(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    got = pay(tier, text)
    assert fact in got
    assert not {f for f in got if f[1] == "Home"}


@pytest.mark.parametrize(
    "text", ["her take home is 2,000", "they moved me to Leeds", "what would my take home be?"]
)
def test_no_pay_from_anothers_take_home_a_move_or_a_question(tier: SpacyTier, text: str) -> None:
    assert not {f for f in pay(tier, text) if f[0] in {"has-take-home-pay", "has-salary"}}


def test_a_pay_range_parsed_as_one_amount_gives_the_new_pay_not_an_old_one(tier: SpacyTier) -> None:
    facts = said_by(tier, "My salary went from £30,000 to £34,000.", "Lin")
    assert ("has-salary", "£34,000") in facts
    assert ("earned", "£34,000") not in facts


def test_an_amount_someone_came_back_with_is_the_offer_not_a_came_with(tier: SpacyTier) -> None:
    (extraction,) = tier.extract([Message(id="m", text="Greg came back with 52k plus bonus.", role="user")])
    facts = {(f.predicate, f.object) for f in extraction.facts}
    assert ("came-with", "52k") not in facts, facts


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("theyre talking R62k a month + relocation", {("has-salary-offer", "R62k")}),  # chat's "talking X"
        ("They're offering R62k a month plus relocation.", {("has-salary-offer", "R62k")}),  # no "me"
        ("They offered £500 for my old car.", set()),  # a price for a thing
        ("They're talking about moving to Leeds", set()),
    ],
)
def test_an_employers_they_naming_a_sum_is_an_offers_pay(
    tier: SpacyTier, text: str, expected: set[tuple[str, str]]
) -> None:
    assert {f for f in pay(tier, text) if f[0] == "has-salary-offer"} == expected


@pytest.mark.parametrize(
    ("text", "now", "before"),
    [
        ("My salary was increased from £42,500 to £45,000 last month.", "£45,000", "£42,500"),
        ("pay rise!!! from 26k to 29.5k, still at the council", "29.5k", "26k"),
        ("Got a raise from £42,500 to £45,000!", "£45,000", "£42,500"),
    ],
)
def test_pay_from_one_amount_to_another_is_the_pay_now_and_before(
    tier: SpacyTier, text: str, now: str, before: str
) -> None:
    got = pay(tier, text)
    assert ("has-salary", now) in got
    assert ("has-salary", before) not in got
    assert ("has-rent", now) not in got


def test_a_rent_lowered_from_one_amount_to_another_is_the_new_rent(tier: SpacyTier) -> None:
    got = pay(tier, "The landlord agreed to drop the rent from £1,050 to £980 since the damp's not fixed.")
    assert ("has-rent", "£980") in got
    assert ("has-rent", "£1,050") not in got


@pytest.mark.parametrize(
    "text",
    [
        "The landlord wants to raise the rent to £1,200.",
        "They refused to raise my salary to £50k.",
        "The landlord is going to put the rent up to £1,200 in May.",
    ],
)
def test_a_change_only_wanted_or_refused_is_not_the_amount_now(tier: SpacyTier, text: str) -> None:
    assert not {p for p, _ in pay(tier, text) if p in {"has-salary", "has-rent"}}


def test_an_offers_terms_listed_as_sentences_of_their_own_are_its_terms(tier: SpacyTier) -> None:
    """'I got the offer at X. Clinical nurse educator. $49.80 an hour.': each term a verbless sentence."""
    text = (
        "Bonne nouvelle!! I got the offer at Victoria General. Clinical nurse educator. $49.80 an hour. "
        "Start Dec 1."
    )
    said = pay(tier, text)
    assert ("has-offer-from", "Victoria General") in said
    assert ("has-offered-role", "Clinical nurse educator") in said
    assert ("has-salary-offer", "$49.80") in said
    # a sentence with a verb after the offer is no term of it
    later = pay(tier, "I got the offer at Victoria General. The manager was lovely.")
    assert not {p for p, _ in later if p in {"has-offered-role", "has-salary-offer"}}


@pytest.mark.parametrize(
    ("text", "salary"),
    [
        ("Also the negotiation: we met at 134,000, plus a bigger bonus target.", "134,000"),
        ("about the offer, we settled on 62k in the end", "62k"),
    ],
)
def test_the_figure_a_pay_talk_ended_on_is_the_salary(tier: SpacyTier, text: str, salary: str) -> None:
    assert ("has-salary", salary) in pay(tier, text)


@pytest.mark.parametrize(
    "text", ["we met at 10 at the cafe, the offer was fine", "we settled on 2 kids, the offer was fine"]
)
def test_no_salary_from_a_meeting_time_or_a_count(tier: SpacyTier, text: str) -> None:
    assert not {p for p, _ in pay(tier, text) if p == "has-salary"}


@pytest.mark.parametrize(
    ("text", "salary"),
    [
        ("I make $20 an hour", "$20"),  # an hourly rate alone is the pay of the job
        ("I'm making $20 an hour at Target", "$20"),
        ("I make 48,000 a year at Five Below", "48,000"),  # a bare number by a period of work
        ("I'm on 12 an hour at Tesco", "12"),
    ],
)
def test_pay_by_the_hour_or_without_its_sign_is_the_salary(tier: SpacyTier, text: str, salary: str) -> None:
    assert ("has-salary", salary) in pay(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I make $20 an hour at Starbucks on Saturdays.",  # a side income
        "I make £200 a week from my Etsy shop",
        "I make $15 an hour babysitting",
        "I'd make $25 an hour at Amazon",
        "I make 3 a week",
    ],
)
def test_a_side_income_or_a_supposed_rate_is_no_salary(tier: SpacyTier, text: str) -> None:
    assert not {f for f in pay(tier, text) if f[0] == "has-salary"}


@pytest.mark.parametrize(
    ("text", "rent"),
    [
        ("rent went up by £50 to £1,300", "£1,300"),  # the change and the new amount parsed as one range
        ("our rent's gone up by £50 to £1,300", "£1,300"),
        ("my half of the rent is 725", "725"),  # the part one pays
        ("my share of the rent is £650", "£650"),
    ],
)
def test_a_rent_raised_by_an_amount_or_ones_share_of_it(tier: SpacyTier, text: str, rent: str) -> None:
    assert ("has-rent", rent) in pay(tier, text)


@pytest.mark.parametrize(
    "text", ["rent went up by £50", "her half of the rent is 725", "my share of the bill is £65"]
)
def test_no_rent_from_a_rise_alone_anothers_share_or_a_bill(tier: SpacyTier, text: str) -> None:
    assert not {f for f in pay(tier, text) if f[0] == "has-rent"}


@pytest.mark.parametrize(
    ("text", "salary"),
    [
        ("Pay rise came through, it's 42k now.", "42k"),  # "it" is the pay risen
        ("my salary will be £52,000 from April", "£52,000"),  # an amount set from a date
    ],
)
def test_pay_after_a_rise_or_from_a_date_is_the_salary(tier: SpacyTier, text: str, salary: str) -> None:
    assert ("has-salary", salary) in pay(tier, text)


@pytest.mark.parametrize(
    "text", ["my salary will be £52,000 if I pass", "His pay rise came through, it's 42k now."]
)
def test_pay_supposed_or_anothers_after_a_rise_is_no_salary(tier: SpacyTier, text: str) -> None:
    assert not {f for f in pay(tier, text) if f[0] == "has-salary"}


@pytest.mark.parametrize(
    ("text", "salary"),
    [
        ("Got the job at Ocado! It pays £34k.", "£34k"),  # "it" is the job named before
        ("I got a new job, it pays 45k.", "45k"),
        ("I earn just under 30k.", "30k"),  # an amount said roughly
        ("Basic is 26k plus overtime.", "26k"),  # "Basic" opening the line, tagged a name
    ],
)
def test_pay_of_the_job_said_before_roughly_or_as_the_basic(tier: SpacyTier, text: str, salary: str) -> None:
    assert ("has-salary", salary) in pay(tier, text)


@pytest.mark.parametrize(
    "text", ["My sister got a job. It pays 30k.", "Sold the car. It paid £3,000.", "It pays £34k."]
)
def test_it_paying_after_anothers_job_a_sale_or_nothing_is_no_salary(tier: SpacyTier, text: str) -> None:
    assert not {f for f in pay(tier, text) if f[0] == "has-salary"}


def test_an_amount_is_no_kind_of_thing(tier: SpacyTier) -> None:
    assert not [f for f in spoken(tier, "Basic is 26k plus overtime.", "Ro").facts if f.predicate == "is-a"]


@pytest.mark.parametrize("text", ["On 2 an hour lol", "Still on 20mg.", "On 3 a day now."])
def test_a_small_number_an_hour_or_a_dose_is_no_pay(tier: SpacyTier, text: str) -> None:
    assert not {p for p, _ in pay(tier, text)} & {"has-salary", "has-take-home-pay"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I'm on about forty one thousand as a quantity surveyor", ("has-salary", "forty one thousand")),
        ("Now on twenty eight grand a year.", ("has-salary", "twenty eight grand")),  # tagged a date
        ("I'm on sixty five K at the moment", ("has-salary", "sixty five K")),
        ("My salary is 6 lakh.", ("has-salary", "6 lakh")),  # India's hundred thousand
        ("My boss is Dave and my salary is 40k", ("has-salary", "40k")),  # "my salary" parsed Dave's conjunct
        ("The flat is tiny but our rent is only £850", ("has-rent", "£850")),
        ("Started as a data analyst at Fenwick, on £44,000.", ("has-salary", "£44,000")),  # the new job's pay
        ("I've joined Monzo as a designer, on about £50k", ("has-salary", "£50k")),
    ],
)
def test_pay_said_aloud_or_after_another_clause(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    assert fact in pay(tier, text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        # a value with a currency sign other than $/€/£/¥ was dropped as parse debris
        ("My rent in Koramangala is ₹32,000.", ("has-rent", "₹32,000")),
        ("I earn ₦450,000 a month.", ("has-salary", "₦450,000")),
        ("Rent is ₱25,000.", ("has-rent", "₱25,000")),
        ("My salary is ₹18 lakh.", ("has-salary", "₹18 lakh")),
        # the pay noun and its "is" parted by a place, in a line the parse hung on its vocative
        ("Yaar, my rent in Koramangala is ₹32,000.", ("has-rent", "₹32,000")),
        ("Mate, my salary at Tesco is £24k.", ("has-salary", "£24k")),  # was has-salary "Mate"
        ("Yaar, my salary at Infosys is 9 lakh.", ("has-salary", "9 lakh")),
    ],
)
def test_pay_in_any_currency_sign_or_of_a_place(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    said = spoken(tier, text, "Ro").facts
    assert fact in {(f.predicate, f.object) for f in said if f.subject == "Ro"}
    # the vocative is neither the pay nor a person whose title is the amount
    assert not [f for f in said if f.predicate in {"has-salary", "has-rent"} and f.object in {"Mate", "Yaar"}]
    assert not [f for f in said if f.predicate in {"is-a", "has-role"}]


@pytest.mark.parametrize(
    "text",
    [
        "If my salary is 40k how much tax do I pay?",
        "Is my salary of 40k fair?",
        "I'm on thirty thousand steps a day now",
        "I'm on forty thousand followers",
        "My sister's salary is 40k",
    ],
)
def test_pay_supposed_asked_or_no_money_is_no_salary(tier: SpacyTier, text: str) -> None:
    assert not {f for f in pay(tier, text) if f[0] in {"has-salary", "has-rent"}}


@pytest.mark.parametrize(("text", "salary"), [("I earn like 45k", "45k"), ("On like 40k now", "40k")])
def test_pay_said_with_a_filler_before_it(tier: SpacyTier, text: str, salary: str) -> None:
    assert ("has-salary", salary) in pay(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "My friend Sofia joined Brightwater. She's nervous about the pay cut, from €72k to €65k.",
        "his salary went from 40k to 45k",
        "Tom got a raise, from 30k to 34k",
    ],
)
def test_another_persons_change_of_pay_is_not_the_speakers(tier: SpacyTier, text: str) -> None:
    assert not {f for f in pay(tier, text) if f[0] in {"has-salary", "earned"}}


def test_the_speakers_change_of_pay_said_with_my(tier: SpacyTier) -> None:
    assert {("has-salary", "45k"), ("earned", "40k")} <= pay(tier, "my salary went from 40k to 45k")


def test_an_amount_is_nobodys_title_home_or_origin(tier: SpacyTier) -> None:
    # "from €72k to €65k" after "She's nervous" was read as where Sofia is from
    text = "My friend Sofia joined Brightwater. She's nervous about the pay cut, from €72k to €65k."
    facts = spoken(tier, text, "Ro").facts
    assert ("Sofia", "works-at", "Brightwater") in {(f.subject, f.predicate, f.object) for f in facts}
    assert not [f for f in facts if f.predicate == "is-from" or f.predicate.startswith(("is-a", "has-role"))]


def test_a_change_of_pay_in_a_line_about_a_named_person_is_theirs(tier: SpacyTier) -> None:
    # "Sofia" is tagged a common noun: the speaker got has-salary €65k
    assert not pay(tier, "Sofia is worried, the pay is going from €72k to €65k.")
    # who reports a change is not whose it is; a rent is the household's
    assert ("has-salary", "50k") in pay(tier, "Tom says the pay is going up to 50k.")
    assert ("has-rent", "£950") in pay(tier, "Tom says the rent is going up to £950.")
