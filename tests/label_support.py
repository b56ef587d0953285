"""Shared by the tests of labelling: made-up articles in a tiny subset of wikitext, and the typed
targets their links point at."""

from __future__ import annotations

import re

from wikisilver.records import Article, EntityType, Link, TargetInfo

LINK = re.compile(r"\[\[([^|\]]+)(?:\|([^\]]+))?\]\]([a-záéíóöőúüű]*)")


def article(markup: str, title: str = "Test article", page_id: int = 1) -> Article:
    """Clean text + link spans from a tiny subset of wikitext ([[T]], [[T|a]], link trails)."""
    text, links, pos = [], [], 0
    out_len = 0
    for match in LINK.finditer(markup):
        before = markup[pos:match.start()]
        text.append(before)
        out_len += len(before)
        anchor = (match.group(2) or match.group(1)) + match.group(3)
        links.append(Link(out_len, out_len + len(anchor), match.group(1), anchor))
        text.append(anchor)
        out_len += len(anchor)
        pos = match.end()
    text.append(markup[pos:])
    return Article(page_id, title, "".join(text), tuple(links))


def entity(title: str, cls: str | None, conll: str, aliases: tuple[str, ...] = (), **kw) -> TargetInfo:
    typed = EntityType(title, cls, conll, "O", "types") if conll else None
    return TargetInfo(title=title, entity=typed, exists=True, aliases=aliases, **kw)


TARGETS = {
    "Abraham Lincoln": entity("Abraham Lincoln", "OfficeHolder", "PER", ("Lincoln", "Honest Abe")),
    "Mary Todd": entity("Mary Todd", "Person", "PER"),
    "United States": entity("United States", "Country", "LOC", ("USA", "U.S.")),
    "Kentucky": entity("Kentucky", "AdministrativeRegion", "LOC"),
    "Hodgenville, Kentucky": entity("Hodgenville, Kentucky", "City", "LOC"),
    "Illinois": entity("Illinois", "AdministrativeRegion", "LOC"),
    "Turkey": entity("Turkey", "Country", "LOC"),
    "China": entity("China", "Country", "LOC"),
    "Alaska": entity("Alaska", "AdministrativeRegion", "LOC"),
    "Greek language": entity("Greek language", "Organisation", "ORG"),
    "Ancient Egypt": entity("Ancient Egypt", "Country", "LOC"),
    "Angola": entity("Angola", "Country", "LOC", ("Angolan",)),
    "Philippines": entity("Philippines", "Country", "LOC"),
    "Laos": entity("Laos", "Country", "LOC"),
    "Sigmund Freud": entity("Sigmund Freud", "Scientist", "PER"),
    "General Motors": entity("General Motors", "Company", "ORG"),
    "Andorra": entity("Andorra", "Country", "LOC"),
    "Mediterranean climate": entity("Mediterranean climate", "Person", "PER"),  # so typed by db100k
    "Jack the Ripper": entity("Jack the Ripper", "Person", "PER"),
    "Umberto I of Italy": entity("Umberto I of Italy", "Royalty", "PER"),
    "Ashkenazi Jews": entity("Ashkenazi Jews", "EthnicGroup", "MISC"),
    "People's Republic of China": entity("People's Republic of China", "Country", "LOC"),
    "National Aeronautics and Space Administration": entity("National Aeronautics and Space Administration",
                                                            "GovernmentAgency", "ORG"),
    "Fredericksburg, Virginia": entity("Fredericksburg, Virginia", "City", "LOC"),
    "NASA": entity("NASA", "GovernmentAgency", "ORG"),
    "Andorra national football team": entity("Andorra national football team", "SportsTeam", "ORG"),
    "Portugal. The Man": entity("Portugal. The Man", "Person", "PER"),
    "Republican Party (United States)": entity("Republican Party (United States)", "PoliticalParty", "ORG"),
    "Whig Party (United States)": entity("Whig Party (United States)", "PoliticalParty", "ORG"),
    "Lawyer": entity("Lawyer", None, ""),
    "Mercury (planet)": entity("Mercury (planet)", "Planet", "O"),
    "Mercury": TargetInfo("Mercury", None, exists=True, is_disambiguation=True),
    # Type errors of the shared DBpedia samples (db100k/db111k) that the article's own text refutes.
    "Lissamphibia": entity("Lissamphibia", "Band", "ORG"),
    "Agribusiness": entity("Agribusiness", "University", "ORG"),
    "Battle of Fredericksburg": entity("Battle of Fredericksburg", "MilitaryConflict", "MISC"),
    "Robert E. Lee": entity("Robert E. Lee", "MilitaryPerson", "PER", ("Lee",)),
    "Juliana of the Netherlands": entity("Juliana of the Netherlands", "Royalty", "PER"),
    "Netherlands": entity("Netherlands", "Country", "LOC"),
    "Joan of Arc": entity("Joan of Arc", "Saint", "PER"),
    "Mary of Teck": entity("Mary of Teck", "Royalty", "PER"),
    "Free Democratic Party (Germany)": entity("Free Democratic Party (Germany)", "PoliticalParty", "ORG"),
    "The New York Times": entity("The New York Times", "Newspaper", "ORG"),
    "The Crime at Black Dudley": entity("The Crime at Black Dudley", "Novel", "MISC"),
    "Walter Chrysler": entity("Walter Chrysler", "BusinessPerson", "PER"),
    "Chrysler": entity("Chrysler", "Company", "ORG"),
    # A disambiguation page that a source typed anyway (as a settlement).
    "Springfield": entity("Springfield", "Settlement", "LOC", is_disambiguation=True),
}

HU_TARGETS = {
    "Berlin": entity("Berlin", "City", "LOC"),
    "Németország": entity("Németország", "Country", "LOC"),
    "WorldCom": entity("WorldCom", "Company", "ORG"),
    "Nobel-díj": entity("Nobel-díj", "Award", "MISC"),
    "Német nyelv": entity("Német nyelv", "Language", "MISC"),
    "NASA": entity("NASA", "GovernmentAgency", "ORG"),
}
