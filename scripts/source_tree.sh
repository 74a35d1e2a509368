# Sourced by install_tau3.sh and install_vita.sh: a benchmark's source tree from where the user keeps it.
#
#   stage_source NAME SOURCE STAGE PYTHON
#     SOURCE: a folder, an archive (.tar.gz/.tgz/.zip, a path or an http(s) URL) or git+URL[@REF] (a tag,
#     a branch or a commit). The tree lands in STAGE/tree: the archive's single top-level folder, or its root.
#     NAME prefixes the error (exit 2) when SOURCE does not exist.

_unpack_archive() {  # _unpack_archive ARCHIVE STAGE PYTHON
  mkdir -p "$2/x"
  case "$1" in
    *.zip) "$3" -m zipfile -e "$1" "$2/x" ;;
    *) tar -xzf "$1" -C "$2/x" ;;
  esac
  local top
  top=$(ls -A "$2/x")
  if [ "$(echo "$top" | wc -l)" = "1" ] && [ -d "$2/x/$top" ]; then
    mv "$2/x/$top" "$2/tree"
  else
    mv "$2/x" "$2/tree"
  fi
}

stage_source() {
  local name="$1" source="$2" stage="$3" python="$4" url ref
  case "$source" in
    git+*)
      url="${source#git+}"; ref=""
      if [[ "$url" =~ ^(.*)@([^/@]+)$ ]]; then url="${BASH_REMATCH[1]}"; ref="${BASH_REMATCH[2]}"; fi
      git clone -q "$url" "$stage/tree"
      if [ -n "$ref" ]; then git -C "$stage/tree" checkout -q "$ref"; fi ;;
    http://*|https://*)
      curl -fsSL -o "$stage/archive.${source##*.}" "$source"
      _unpack_archive "$stage/archive.${source##*.}" "$stage" "$python" ;;
    *)
      [ -e "$source" ] \
        || { echo "$name: $source does not exist; pass a folder, an archive or git+URL[@REF]" >&2; exit 2; }
      if [ -d "$source" ]; then mkdir -p "$stage/tree" && cp -a "$source/." "$stage/tree/"; else _unpack_archive "$source" "$stage" "$python"; fi ;;
  esac
}
