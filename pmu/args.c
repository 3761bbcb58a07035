/* Parsing "key=value,..." arguments of PMU backends (see args.h). */
#include "args.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"

static int bad_key(const struct pmu_args *pa, const char *key, const char *const *keys)
{
	char list[256] = "";

	for (size_t i = 0; keys[i]; i++) {
		if (strlen(list) + strlen(keys[i]) + 3 >= sizeof(list))
			break;
		if (i)
			strcat(list, ", ");
		strcat(list, keys[i]);
	}
	return error("PMU backend '%s': unknown argument '%s' (it takes: %s; see 'pperf list %s')",
		     pa->backend, key, list, pa->backend);
}

static const char *known_key(const char *key, const char *const *keys)
{
	for (size_t i = 0; keys[i]; i++)
		if (!strcmp(keys[i], key))
			return keys[i];
	return NULL;
}

int pmu_args_parse(struct pmu_args *pa, const char *backend, const char *args,
		   const char *const *keys, const char *rest_key)
{
	const char *p = args;

	*pa = (struct pmu_args){ .backend = backend };
	while (p && *p) {
		const char *comma = strchr(p, ','), *eq = strchr(p, '=');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		const char *key;
		char *name;

		if (!eq || eq > p + len) {
			/* A part of the previous value: domains=package,dram. */
			if (!pa->nr) {
				char *part = xstrndup(p, len);

				error("PMU backend '%s': argument '%s' is not KEY=VALUE", backend, part);
				free(part);
				goto fail;
			}
			struct pmu_arg *last = &pa->args[pa->nr - 1];
			char *v = xasprintf("%s,%.*s", last->value, (int)len, p);

			free(last->value);
			last->value = v;
			p = comma ? comma + 1 : NULL;
			continue;
		}
		name = xstrndup(p, (size_t)(eq - p));
		key = known_key(name, keys);
		if (!key) {
			bad_key(pa, name, keys);
			free(name);
			goto fail;
		}
		free(name);
		if (pmu_args_get(pa, key)) {
			error("PMU backend '%s': argument '%s' is given twice", backend, key);
			goto fail;
		}
		pa->args = xreallocarray(pa->args, pa->nr + 1, sizeof(*pa->args));
		pa->args[pa->nr].key = key;
		if (rest_key && !strcmp(key, rest_key)) {
			pa->args[pa->nr++].value = xstrdup(eq + 1);
			break;
		}
		pa->args[pa->nr++].value = xstrndup(eq + 1, (size_t)(p + len - eq - 1));
		p = comma ? comma + 1 : NULL;
	}
	return 0;
fail:
	pmu_args_release(pa);
	return -1;
}

const char *pmu_args_get(const struct pmu_args *pa, const char *key)
{
	for (uint32_t i = 0; i < pa->nr; i++)
		if (!strcmp(pa->args[i].key, key))
			return pa->args[i].value;
	return NULL;
}

int pmu_args_double(const struct pmu_args *pa, const char *key, double def, double min, double max,
		    double *out)
{
	const char *v = pmu_args_get(pa, key);

	*out = def;
	if (!v)
		return 0;
	if (parse_double(v, out) < 0 || !(*out >= min && *out <= max))
		return error("PMU backend '%s': %s=%s is not a number from %g to %g", pa->backend, key,
			     v, min, max);
	return 0;
}

void pmu_args_release(struct pmu_args *pa)
{
	for (uint32_t i = 0; i < pa->nr; i++)
		free(pa->args[i].value);
	free(pa->args);
	pa->args = NULL;
	pa->nr = 0;
}
