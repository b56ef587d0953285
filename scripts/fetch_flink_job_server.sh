#!/usr/bin/env bash
# Fetch Beam's Flink job server from Maven Central, for `wikisilver build --runner flink`.
#
# usage: scripts/fetch_flink_job_server.sh [DEST]      (default DEST: .cache/flink in the repository)
#
# Needs Java 11+ and Maven. Resolves the job server's jars (scripts/flink-job-server/pom.xml:
# beam-runners-flink-1.19 2.62.0 and its dependencies, ~150 MB) into DEST/lib, checks each one
# against the SHA-256 pinned in scripts/flink-job-server/SHA256SUMS (Maven itself checks the
# repository's checksums: -C), and writes DEST/beam-flink-job-server.jar, a launcher jar whose
# manifest names the main class and the jars in lib/ (`java -jar` runs it as Beam runs the job
# server's own jar). Prints the launcher's path; pass it as --flink_job_server_jar. A second run
# with everything in place only checks the checksums. wikisilver itself never downloads anything.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SPEC=$HERE/flink-job-server
DEST=${1:-$HERE/../.cache/flink}
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
JAR=$DEST/beam-flink-job-server.jar

verified() {  # every pinned jar present with its checksum, and no other jar
    [ -d "$1" ] || return 1
    (cd "$1" && sha256sum --check --quiet --strict "$SPEC/SHA256SUMS" >/dev/null 2>&1) || return 1
    [ "$(ls "$1" | grep -c '\.jar$')" = "$(grep -c . "$SPEC/SHA256SUMS")" ]
}

if [ -f "$JAR" ] && verified "$DEST/lib"; then
    echo "$JAR"
    exit 0
fi

for tool in java mvn jar sha256sum; do
    command -v "$tool" >/dev/null || { echo "fetch_flink_job_server: '$tool' is needed (Java 11+ and Maven)" >&2; exit 2; }
done

WORK=$(mktemp -d "$DEST/.fetch-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
echo "fetch_flink_job_server: resolving the Beam Flink job server from Maven Central into $DEST/lib" >&2
mvn -B -q -C -f "$SPEC/pom.xml" dependency:copy-dependencies -DoutputDirectory="$WORK/lib" >&2
if ! (cd "$WORK/lib" && sha256sum --check --quiet --strict "$SPEC/SHA256SUMS" >&2); then
    echo "fetch_flink_job_server: a jar's SHA-256 differs from scripts/flink-job-server/SHA256SUMS; nothing installed" >&2
    exit 1
fi
verified "$WORK/lib" || { echo "fetch_flink_job_server: Maven resolved other jars than SHA256SUMS pins" >&2; exit 1; }

# The launcher: Main-Class and a Class-Path of lib/*.jar (manifest lines wrap at 70 bytes, a
# continuation line starts with a space), and slf4j-simple's settings: warnings and errors only.
{
    echo "Manifest-Version: 1.0"
    echo "Main-Class: org.apache.beam.runners.flink.FlinkJobServerDriver"
    echo "Class-Path: $(cd "$WORK/lib" && ls *.jar | sed 's|^|lib/|' | tr '\n' ' ')" | fold -w 69 | sed '2,$s/^/ /'
} > "$WORK/MANIFEST.MF"
mkdir "$WORK/res"
printf 'org.slf4j.simpleLogger.defaultLogLevel=warn\norg.slf4j.simpleLogger.logFile=System.err\n' \
    > "$WORK/res/simplelogger.properties"
jar --create --file "$WORK/launcher.jar" --manifest "$WORK/MANIFEST.MF" -C "$WORK/res" simplelogger.properties

rm -rf "$DEST/lib"
mv "$WORK/lib" "$DEST/lib"
mv "$WORK/launcher.jar" "$JAR"
echo "$JAR"
