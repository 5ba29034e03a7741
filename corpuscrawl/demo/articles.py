"""Articles of the bundled demo site (original texts written for corpuscrawl).

Each article is (slug, section, title, date, author, paragraphs).  The demo
crawl's corpus must contain these paragraphs and none of the site's menus,
related-link lists, share prompts or copyright line.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Article:
    """One demo article."""

    slug: str
    section: str
    title: str
    date: str
    author: str
    language: str
    paragraphs: tuple[str, ...]


ARTICLES: tuple[Article, ...] = (
    Article(
        "river-cleanup", "town", "Volunteers pull two tonnes of rubbish from the Alder River",
        "2024-04-14", "Maya Okafor", "en", (
            "More than three hundred volunteers waded into the Alder River on Saturday morning "
            "for the largest clean-up the town has organised in a decade. By mid-afternoon they "
            "had hauled out almost two tonnes of rubbish, including forty shopping trolleys, a "
            "rusted motorcycle and what one volunteer described as an entire garden shed.",
            "The clean-up was coordinated by the Alder Valley Trust, which has monitored water "
            "quality along the lower river since 2009. Its director, Priya Raman, said the "
            "amount of plastic film caught in the reeds had doubled over five years, and that "
            "most of it arrived from storm drains after heavy rain rather than from people "
            "dumping waste on the banks.",
            "Children from the two primary schools sorted the finds into categories on the "
            "footbridge, and the trust will publish the tallies next month. Similar counts in "
            "previous years helped persuade the council to fit mesh traps to the three largest "
            "storm outfalls, which now catch bottles before they reach the water.",
            "Anglers who fish the stretch below the weir said they had already noticed a "
            "difference. The trust plans a second clean-up in September, when the water is "
            "lowest, and is looking for volunteers with waders and a strong back.",
        )),
    Article(
        "library-extension", "culture", "New reading room opens at the old grain store",
        "2024-05-02", "Tomas Lindqvist", "en", (
            "The town library's long-awaited extension opened to the public on Thursday, "
            "turning the derelict grain store on Mill Lane into a bright reading room with "
            "space for twelve thousand books and forty study desks.",
            "Architects kept the building's timber roof trusses and its iron loading doors, "
            "which now open onto a small courtyard garden planted by the local horticultural "
            "society. A lift and a ramp make the upper gallery accessible for the first time, "
            "and the local history collection has moved into climate-controlled cabinets "
            "upstairs.",
            "Head librarian Grace Adeyemi said the old building had been so crowded that "
            "half of the collection lived in boxes in the basement. Visitors can now browse "
            "the maps, parish registers and photographs that were previously available only "
            "by appointment.",
            "The project cost 1.8 million pounds, most of it raised from a heritage grant and "
            "a decade of book sales, bake sales and sponsored walks. The reading room is open "
            "every day except Monday, and late on Wednesdays until nine in the evening.",
        )),
    Article(
        "bakery-apprentices", "business", "Family bakery trains a new generation of bakers",
        "2024-05-19", "Maya Okafor", "en", (
            "At four in the morning the ovens at Harlow's Bakery are already hot, and three "
            "apprentices are shaping the first loaves of the day under the watchful eye of "
            "Edith Harlow, whose grandfather opened the shop in 1931.",
            "The bakery took on its first apprentices in twenty years last autumn after a "
            "regional college launched a part-time course in artisan baking. The apprentices "
            "spend four days a week in the bakery and one in the classroom, learning food "
            "science, costing and the chemistry of sourdough starters.",
            "Harlow said it had become almost impossible to hire experienced bakers, because "
            "few young people were willing to work through the night. Training her own staff, "
            "she said, was slower but meant the recipes and habits of the shop would survive "
            "her retirement.",
        )),
    Article(
        "orchard-festival", "culture", "Apple festival returns to the community orchard",
        "2024-09-28", "Tomas Lindqvist", "en", (
            "The community orchard on Hill Road was crowded on Sunday as the apple festival "
            "returned after a two-year pause. Visitors pressed juice in wooden presses, "
            "tasted forty local varieties and learned how to graft young trees.",
            "Volunteers planted the orchard fifteen years ago on land left over after the "
            "bypass was built. It now has more than ninety trees, many of them old regional "
            "varieties rescued from abandoned farm gardens, such as the russet known locally "
            "as Miller's Gold.",
            "An identification table run by a retired pomologist drew a long queue of people "
            "carrying apples from their own gardens. Several turned out to be varieties that "
            "had not been recorded in the county for decades, and cuttings will be taken in "
            "winter so that they can be grafted onto new rootstock.",
            "All proceeds from the juice sales go towards a new storage shed, where the "
            "orchard group hopes to keep apples through the winter for school lunches.",
        )),
    Article(
        "night-buses", "town", "Council approves trial of late-night bus service",
        "2024-10-09", "Samir Haddad", "en", (
            "A late-night bus service linking the town centre with the three outlying "
            "villages will run on Fridays and Saturdays from November, after councillors "
            "approved a six-month trial on Tuesday evening.",
            "Buses will leave the market square every hour between eleven at night and three "
            "in the morning. Young people and shift workers had campaigned for the service "
            "for years, arguing that the last bus at half past ten left them relying on "
            "expensive taxis or long walks along unlit roads.",
            "The trial will cost about ninety thousand pounds, shared between the council and "
            "the bus operator. Passenger numbers will be reviewed in April, and the service "
            "will become permanent only if at least thirty people use each journey on average.",
        )),
    Article(
        "zagreb-suradnja", "culture", "Gradska knjižnica surađuje s knjižnicom u Zagrebu",
        "2024-11-03", "Ivana Marić", "hr", (
            "Gradska knjižnica potpisala je ovog tjedna sporazum o suradnji s jednom "
            "zagrebačkom narodnom knjižnicom. Dvije će ustanove razmjenjivati knjige, "
            "organizirati zajedničke književne večeri i pomagati jedna drugoj u digitalizaciji "
            "starih novina i fotografija.",
            "Ravnateljica knjižnice rekla je da je suradnja nastala nakon posjeta skupine "
            "hrvatskih knjižničara prošlog proljeća. Gosti su bili oduševljeni zbirkom "
            "lokalne povijesti, a domaćini su mnogo naučili o tome kako se u Zagrebu vode "
            "radionice čitanja za djecu i starije sugrađane.",
            "Prva zajednička večer održat će se u prosincu u novoj čitaonici, a na njoj će "
            "gostovati dvoje hrvatskih pisaca koji će čitati odlomke iz svojih romana uz "
            "prijevod na engleski jezik.",
        )),
)
