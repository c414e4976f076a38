# tracecost.bash: bash completion for tracecost (installed as
# share/bash-completion/completions/tracecost): subcommands, each one's options, and trace files
# (*.json, *.json.gz and folders) for analyze. The options are those of cli/opt_tables.c:
# tests/test_options.c fails when this file lists one the tables lack, or lacks one they have.

_tracecost() {
    local cur prev words cword
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev=""
    [ "$COMP_CWORD" -gt 0 ] && prev="${COMP_WORDS[COMP_CWORD-1]}"
    local commands="analyze compare cost gpus record timeline help"
    local gpus="a100-pcie a100-sxm a800-pcie a800-sxm b200 b300 gb300 h100-pcie h100-sxm h20 h200 h200-nvl h800 l40s
        mi210 mi250x mi300x mi325x mi355x v100-sxm2"
    local fabrics="ib-edr ib-hdr ib-ndr ib-xdr eth-25g eth-100g eth-200g eth-400g eth-800g"
    local cost_value_opts="--gpus --price-per-gpu-hour --purchase-per-gpu --fabric-cost --power-kw-per-gpu
        --electricity-per-kwh --pue --ops-per-month --months --utilization --network-efficiency
        --rent-network-efficiency --fabric-GBps --fabric-target-GBps --fabric-target-latency-us
        --fabric-upgrade-cost"
    local cmd="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${COMP_WORDS[i]}" in
            -*) ;;
            *) cmd="${COMP_WORDS[i]}"; break ;;
        esac
    done

    if [ -z "$cmd" ]; then
        COMPREPLY=($(compgen -W "$commands version --help --version -h -V" -- "$cur"))
        return 0
    fi

    case "$cmd" in
    analyze)
        case "$prev" in
            --json|--html) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null; return 0 ;;
            --csv) COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames 2>/dev/null; return 0 ;;
            --nccl) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null; return 0 ;;
            --config) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null; return 0 ;;
            --gpu) COMPREPLY=($(compgen -W "$gpus" -- "$cur")); return 0 ;;
            --window) COMPREPLY=($(compgen -W "all 1 2 3" -- "$cur")); return 0 ;;
            --fabric|--fabric-target) COMPREPLY=($(compgen -W "$fabrics" -- "$cur")); return 0 ;;
            -j|--jobs|--bound-threshold|--model-flops-per-step|--params|--tokens-per-step|--gpus-per-node|--comm-kernel|--nic-gbps|--pp)
                COMPREPLY=(); return 0 ;;
        esac
        if [ -n "$prev" ] && [[ " $cost_value_opts " == *" $prev "* ]]; then COMPREPLY=(); return 0; fi
        if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "--json --html --csv --force --jobs -j --bound-threshold --recursive -r --quiet -q --help -h $cost_value_opts
                --gpu --config --fabric-target --model-flops-per-step --params --tokens-per-step --gpus-per-node
                --fabric --nic-gbps --no-cost --no-replay --pp --comm-kernel --window --nccl" -- "$cur"))
        else
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.json' -- "$cur") $(compgen -f -X '!*.json.gz' -- "$cur"))
        fi
        ;;
    compare)
        case "$prev" in
            --json|--html|--config|--b-config) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null; return 0 ;;
            --gpu|--b-gpu) COMPREPLY=($(compgen -W "$gpus" -- "$cur")); return 0 ;;
            --fabric|--fabric-target|--b-fabric-target) COMPREPLY=($(compgen -W "$fabrics" -- "$cur")); return 0 ;;
            -j|--jobs|--work-steps-per-month|--tokens-per-step|--b-tokens-per-step|--samples-per-step|--b-samples-per-step|--gpus-per-node|--comm-kernel|--nic-gbps)
                COMPREPLY=(); return 0 ;;
        esac
        local b_opts="" o
        for o in $cost_value_opts --gpu --config --fabric-target; do b_opts="$b_opts --b-${o#--}"; done
        if [ -n "$prev" ] && [[ " $cost_value_opts $b_opts " == *" $prev "* ]]; then COMPREPLY=(); return 0; fi
        if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "--json --html --work-steps-per-month --tokens-per-step --b-tokens-per-step
                --samples-per-step --b-samples-per-step --gpus-per-node --fabric --nic-gbps --jobs -j --comm-kernel --recursive -r --force --quiet -q --help -h
                $cost_value_opts --gpu --config --fabric-target $b_opts" -- "$cur"))
        else
            compopt -o filenames 2>/dev/null # A and B: trace folders or files, or saved --json results
            COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.json' -- "$cur") $(compgen -f -X '!*.json.gz' -- "$cur"))
        fi
        ;;
    cost)
        case "$prev" in
            --json|--config) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null; return 0 ;;
            --gpu) COMPREPLY=($(compgen -W "$gpus" -- "$cur")); return 0 ;;
            --fabric-target) COMPREPLY=($(compgen -W "$fabrics" -- "$cur")); return 0 ;;
        esac
        if [ -n "$prev" ] && [[ " $cost_value_opts " == *" $prev "* ]]; then COMPREPLY=(); return 0; fi
        COMPREPLY=($(compgen -W "$cost_value_opts --fabric-target --gpu --config --json --help -h" -- "$cur"))
        ;;
    gpus)
        COMPREPLY=($(compgen -W "--json --links --help -h" -- "$cur"))
        ;;
    timeline)
        case "$prev" in
            -o|--output) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null; return 0 ;;
            --ranks|--steps|-j|--jobs|--comm-kernel|--window) COMPREPLY=(); return 0 ;;
        esac
        if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "-o --output --force --ranks --steps --jobs -j --comm-kernel --window --recursive -r --quiet -q
                --help -h" -- "$cur"))
        else
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.json' -- "$cur") $(compgen -f -X '!*.json.gz' -- "$cur"))
        fi
        ;;
    record)
        local k
        for ((k = 2; k < COMP_CWORD; k++)); do
            if [ "${COMP_WORDS[k]}" = "--" ]; then
                COMPREPLY=($(compgen -c -- "$cur")) # the traced command and its arguments
                [ "$k" -lt $((COMP_CWORD - 1)) ] && { compopt -o default 2>/dev/null; COMPREPLY=(); }
                return 0
            fi
        done
        case "$prev" in
            -o|--output) COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames 2>/dev/null; return 0 ;;
            --delay|--duration) COMPREPLY=(); return 0 ;;
        esac
        COMPREPLY=($(compgen -W "-o --output --gzip --delay --duration -- --help -h" -- "$cur"))
        ;;
    help)
        COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        ;;
    esac
    return 0
}

complete -F _tracecost tracecost
