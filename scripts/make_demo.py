"""Write the demo dump bundled with the package (src/wikisilver/demo/).

The articles are short texts written for wikisilver in MediaWiki markup (infoboxes, references,
files, categories, interlanguage links, a table, a redirect, a disambiguation page and pages of
other namespaces), exported in the MediaWiki export-0.10 XML format and compressed with bz2, as
dumps are published. Run: python scripts/make_demo.py
"""

from __future__ import annotations

import bz2
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

DEMO = Path(__file__).resolve().parents[1] / "src" / "wikisilver" / "demo"

ARTICLES = {
    "Danube": """{{Infobox river
| name = Danube
| length = 2850 km
}}
The '''Danube''' is the second-longest river in [[Europe]], after the [[Volga]].<ref>{{cite book |title=Rivers of Europe |year=2009}}</ref> It rises in the [[Black Forest]] of [[Germany]] and flows through [[Vienna]], [[Bratislava]], [[Budapest]] and [[Belgrade]] before it reaches the [[Black Sea]].

[[File:Danube in Budapest.jpg|thumb|The Danube at [[Budapest]]]]
The river was a frontier of the [[Roman Empire]] for centuries. Today it is an important waterway, and ships carry [[grain]] and [[steel]] along it.

== Cities ==
{| class="wikitable"
! City !! Country
|-
| Vienna || Austria
|}
The largest city on the river is [[Budapest]]. The Danube flows through ten countries.

[[Category:Rivers of Europe]]
[[de:Donau]]
[[hu:Duna]]
""",
    "Budapest": """{{Infobox settlement
| name = Budapest
| country = Hungary
}}
'''Budapest''' is the capital and the largest city of [[Hungary]]. It lies on both banks of the [[Danube]].<ref name="census">Census 2011.</ref>

The city was formed on [[17 November]] [[1873]] by the union of [[Buda]], [[Óbuda]] and [[Pest, Hungary|Pest]]. Budapest hosts the [[Hungarian Parliament Building]], which was designed by [[Imre Steindl]].

The [[Hungarian language|Hungarian]] name of the city is also used in [[English language|English]]. Many tourists visit the [[thermal bath]]s of Budapest every year.

[[Category:Capitals in Europe]]
""",
    "Hungary": """{{Infobox country
| conventional_long_name = Hungary
| capital = [[Budapest]]
}}
'''Hungary''' is a country in [[Central Europe]]. Its capital is [[Budapest]], and its official language is [[Hungarian language|Hungarian]].

Hungary joined the [[European Union]] in [[2004]]. It borders [[Austria]], [[Slovakia]], [[Ukraine]], [[Romania]], [[Serbia]], [[Croatia]] and [[Slovenia]].

The [[Hungarian Parliament Building]] stands in Budapest. [[Ferenc Puskás]] is one of the best known [[Hungarian people|Hungarian]] footballers.

[[Category:Countries in Europe]]
""",
    "Ferenc Puskás": """{{Infobox football biography
| name = Ferenc Puskás
}}
'''Ferenc Puskás''' (1 April 1927 – 17 November 2006) was a [[Hungary|Hungarian]] [[association football|footballer]] and manager.

He played for [[Budapest Honvéd FC|Budapest Honvéd]] and for [[Real Madrid CF|Real Madrid]]. Puskás scored 84 goals in 85 international matches for [[Hungary national football team|Hungary]].

In [[1958]], Puskás moved to [[Madrid]]. With [[Real Madrid CF|Real Madrid]] he won the [[European Cup]] three times. The [[FIFA Puskás Award]] is named after him.

He died in [[Budapest]] in [[2006]].

[[Category:Hungarian footballers]]
""",
    "Real Madrid CF": """{{Infobox football club
| clubname = Real Madrid
}}
'''Real Madrid Club de Fútbol''' is a professional [[association football|football]] club based in [[Madrid]], [[Spain]]. The club plays in [[La Liga]].

Real Madrid was founded in [[1902]]. [[Ferenc Puskás]] and [[Alfredo Di Stéfano]] played for the club in the 1950s and 1960s. The club plays its home matches at the [[Santiago Bernabéu Stadium]].

[[Category:Football clubs in Spain]]
""",
    "Vienna": """'''Vienna''' is the capital of [[Austria]]. It lies on the [[Danube]], about 55 kilometres west of [[Bratislava]].

Vienna was the seat of the [[Habsburg Monarchy]].<ref>See the [[Habsburg Monarchy]] article.</ref> The [[Vienna State Opera]] is one of the most famous [[opera house]]s in the world.

Mozart lived in Vienna for ten years.

[[Category:Capitals in Europe]]
""",
    "Imre Steindl": """'''Imre Steindl''' (29 October 1839 – 31 August 1902) was a [[Hungary|Hungarian]] [[architect]].

Steindl designed the [[Hungarian Parliament Building]] in [[Budapest]]. He was a professor at the [[Budapest University of Technology and Economics|Technical University of Budapest]].

He died weeks before the building was opened.
""",
    "Hungarian Parliament Building": """The '''Hungarian Parliament Building''' is the seat of the [[National Assembly (Hungary)|National Assembly of Hungary]]. It stands on the bank of the [[Danube]] in [[Budapest]].

The building was designed by [[Imre Steindl]] and completed in [[1904]]. It is the largest building in Hungary.
""",
}

REDIRECTS = {
    "Duna": "Danube",
    "Puskás": "Ferenc Puskás",
    "Real Madrid": "Real Madrid CF",
    "Wien": "Vienna",
    "Parliament of Hungary": "Hungarian Parliament Building",
}

OTHER_PAGES = [
    ("Pest", 0, "'''Pest''' may refer to:\n* [[Pest, Hungary]], the eastern part of Budapest\n* [[Pest (organism)]], a harmful animal or plant\n\n{{disambiguation}}\n"),
    ("Talk:Danube", 1, "Is the length of the river right? ~~~~\n"),
    ("Template:Infobox river", 10, "<includeonly>{{{name}}}</includeonly>\n"),
    ("Category:Capitals in Europe", 14, "Capital cities of European countries.\n"),
]

TYPES = {
    "Danube": "River", "Budapest": "City", "Hungary": "Country", "Ferenc_Puskás": "SoccerPlayer",
    "Real_Madrid_CF": "SoccerClub", "Vienna": "City", "Imre_Steindl": "Architect",
    "Hungarian_Parliament_Building": "Building", "Europe": "Continent", "Volga": "River",
    "Black_Forest": "MountainRange", "Germany": "Country", "Bratislava": "City", "Belgrade": "City",
    "Black_Sea": "Sea", "Roman_Empire": "Country", "Buda": "Settlement", "Óbuda": "Settlement",
    "Pest,_Hungary": "Settlement", "Hungarian_language": "Language", "English_language": "Language",
    "Central_Europe": "Place", "European_Union": "Organisation", "Austria": "Country",
    "Slovakia": "Country", "Ukraine": "Country", "Romania": "Country", "Serbia": "Country",
    "Croatia": "Country", "Slovenia": "Country", "Hungarian_people": "EthnicGroup",
    "Budapest_Honvéd_FC": "SoccerClub", "Hungary_national_football_team": "NationalSoccerClub",
    "Madrid": "City", "European_Cup": "SoccerTournament", "FIFA_Puskás_Award": "Award",
    "Spain": "Country", "La_Liga": "SoccerLeague", "Alfredo_Di_Stéfano": "SoccerPlayer",
    "Santiago_Bernabéu_Stadium": "Stadium", "Habsburg_Monarchy": "Country",
    "Vienna_State_Opera": "Theatre", "Budapest_University_of_Technology_and_Economics": "University",
    "National_Assembly_(Hungary)": "Legislature", "Association_football": "Sport",
}


def page_xml(page_id: int, title: str, ns: int, text: str, redirect: str | None = None) -> str:
    redirect_xml = f"    <redirect title={quoteattr(redirect)} />\n" if redirect else ""
    return (
        "  <page>\n"
        f"    <title>{escape(title)}</title>\n"
        f"    <ns>{ns}</ns>\n"
        f"    <id>{page_id}</id>\n"
        f"{redirect_xml}"
        "    <revision>\n"
        f"      <id>{page_id * 10}</id>\n"
        "      <timestamp>2024-01-01T00:00:00Z</timestamp>\n"
        "      <model>wikitext</model>\n"
        "      <format>text/x-wiki</format>\n"
        f'      <text xml:space="preserve" bytes="{len(text.encode())}">{escape(text)}</text>\n'
        "    </revision>\n"
        "  </page>\n"
    )


def main() -> None:
    head = (
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="en">\n'
        "  <siteinfo>\n    <sitename>Demowiki</sitename>\n    <dbname>enwiki</dbname>\n"
        "    <base>https://en.wikipedia.org/wiki/Main_Page</base>\n"
        "    <generator>wikisilver demo</generator>\n    <case>first-letter</case>\n"
        "    <namespaces>\n"
        '      <namespace key="0" case="first-letter" />\n'
        '      <namespace key="1" case="first-letter">Talk</namespace>\n'
        '      <namespace key="6" case="first-letter">File</namespace>\n'
        '      <namespace key="10" case="first-letter">Template</namespace>\n'
        '      <namespace key="14" case="first-letter">Category</namespace>\n'
        "    </namespaces>\n  </siteinfo>\n"
    )
    pages = []
    page_id = 100
    for title, text in ARTICLES.items():
        page_id += 1
        pages.append(page_xml(page_id, title, 0, text))
    for source, target in REDIRECTS.items():
        page_id += 1
        pages.append(page_xml(page_id, source, 0, f"#REDIRECT [[{target}]]\n", redirect=target))
    for title, ns, text in OTHER_PAGES:
        page_id += 1
        pages.append(page_xml(page_id, title, ns, text))
    xml = head + "".join(pages) + "</mediawiki>\n"
    DEMO.mkdir(parents=True, exist_ok=True)
    (DEMO / "demowiki-pages-articles.xml.bz2").write_bytes(bz2.compress(xml.encode("utf-8")))
    rdf_type = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    lines = [
        f"<http://dbpedia.org/resource/{title}> {rdf_type} <http://dbpedia.org/ontology/{cls}> .\n"
        for title, cls in sorted(TYPES.items())
    ]
    (DEMO / "demowiki-types.nt").write_text("".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main()
