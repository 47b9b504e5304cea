# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion (completion/tp): with two pools on image files,
# completing `tvsnap <TAB>` offers their volumes; pools, options, choice
# values and commands come from the devices file and each command's --help.
DATA_SIZE=128M META_SIZE=16M
new_pool alpha
new_pool beta
ok tvcreate -V 1G -n www alpha
ok tvcreate -V 1G -n db beta
ok tvcreate -V 1G -n logs beta

# shellcheck disable=SC1091
source "$TOP/completion/tp"
# complete WORD...: COMPREPLY for the last word, one a line, sorted, in ./out
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	set +e
	_tptools "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" ""
	set -e
	printf '%s\n' "${COMPREPLY[@]}" | sort >out
}
expect() { printf '%s\n' "$@" | sort >want; diff want out || fail "completion differs"; }

complete_words tvsnap ""
expect alpha/www beta/db beta/logs
complete_words tvsnap b
expect beta/db beta/logs
complete_words tp snap ""
expect alpha/www beta/db beta/logs
complete_words tvremove alpha/www ""
expect alpha/www beta/db beta/logs
complete_words tvsnap -n ""		# a new name: nothing offered
expect ""
complete_words tvrollback beta/db --to ""	# a snapshot of db's family: none yet
expect ""
complete_words tpactivate ""
expect alpha beta
complete_words tpactivate beta ""
expect db logs
complete_words tpstatus alpha ""
expect alpha beta alpha/www beta/db beta/logs
complete_words tpstatus beta/
expect beta/db beta/logs
complete_words tpcreate ""
expect ""
complete_words tpchange --activate ""
expect n y
complete_words tpcreate --discards ""
expect ignore nopassdown passdown
complete_words tvcreate --vir
expect --virtualsize
complete_words tpactivate --a
expect --all --allow-component --auto
complete_words tp ""
out_has "^tvsnap$"
out_has "^tpchange$"
out_has "^snap$"
complete_words tp tvs
expect tvsnap
complete_words tpcreate --data alpha-d
expect alpha-data.img
complete_words tvsnap --devices alpha-data.img,alpha-m
expect alpha-data.img,alpha-meta.img
complete_words tpdump al
expect alpha-data.img alpha-meta.img
# --profile and --format values (also short options), choices only
complete_words tpcreate --profile ""
expect balanced snapshots throughput
complete_words tpcreate -P t
expect throughput
complete_words tpsend --format ""
expect raw stream
complete_words tpsend -f r
expect raw
complete_words tpdiff --format ""
expect human json xml
complete_words tpdump --format ""
expect human pack xml
complete_words tprestore --format ""
expect pack xml
complete_words tpstatus --format ""
expect json prometheus table
complete_words tpstatus -f p
expect prometheus
mkdir -p textfile.d
complete_words tpmonitor --textfile text	# a directory: files and directories
expect textfile.d
complete_words tpmonitor --t
expect --textfile
# tvrollback --to: the snapshots of the volume's family (what tvrollback
# accepts), not the other volumes of the pool nor the volume itself
ok tvsnap beta/db -n db-mon
ok tvsnap beta/db-mon -n db-tue
ok tvsnap beta/logs -n logs-mon
complete_words tvrollback beta/db --to ""
expect db-mon db-tue
complete_words tvrollback beta/db-tue --to ""
expect db db-mon
complete_words tvrollback beta/logs --to ""
expect logs-mon
complete_words tp vrollback beta/db --to db-t
expect db-tue
complete_words tvrollback beta/db-mon --to ""
expect db db-tue
complete_words tvrollback --to ""	# no volume named yet: nothing to offer
expect ""
# tvremove --undo and --purge: the names in the trash (not the volumes);
# a plain tvremove: the volumes (not the trash)
ok tpchange --trash-retention 1h beta
ok tvremove beta/logs-mon
complete_words tvremove --undo ""
expect beta/logs-mon
complete_words tvremove --purge beta/l
expect beta/logs-mon
complete_words tvremove beta/logs
expect beta/logs
# every command has the completion
complete -p tvsnap tpchange tvchange tpactivate tpcreate >/dev/null
