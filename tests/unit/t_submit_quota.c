/*
 * Unit tests of submit_quota: which jobs are non-preemptible, the GPUs
 * of all a job's pods, and the sentence for a job that can never be
 * scheduled in its project.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runai/submit_quota.h"

#include "harness.h"

static char team_a[] = "team-a", plain[] = "plain";

static struct rai_project
project(char *name, double deserved)
{
	struct rai_project p;

	memset(&p, 0, sizeof(p));
	p.name = name;
	p.deserved_gpus = deserved;
	p.has_quota = 1;
	return p;
}

TEST(which_jobs_stay_within_quota)
{
	struct rai_submit_spec s;

	rai_submit_spec_init(&s);
	T_INT_EQ(rai_submit_non_preemptible(&s), 0);	/* a training */
	s.interactive = 1;
	T_INT_EQ(rai_submit_non_preemptible(&s), 1);
	s.preemptible = 1;
	T_INT_EQ(rai_submit_non_preemptible(&s), 0);
	s.interactive = 0;
	s.preemptible = 0;
	s.non_preemptible = 1;				/* asked for so */
	T_INT_EQ(rai_submit_non_preemptible(&s), 1);
}

TEST(the_gpus_of_all_its_pods)
{
	struct rai_submit_spec s;
	struct rai_dist_spec d;
	struct rai_dist_master m;

	rai_submit_spec_init(&s);
	s.gpu = 2;
	T_DBL_EQ(rai_submit_gpus(&s, NULL), 2);
	memset(&d, 0, sizeof(d));
	d.kind = RAI_DIST_PYTORCH;
	d.workers = 3;
	/* the master is a copy of the workers: 4 pods of 2 */
	T_DBL_EQ(rai_submit_gpus(&s, &d), 8);
	d.no_master = 1;
	T_DBL_EQ(rai_submit_gpus(&s, &d), 6);
	d.no_master = 0;
	memset(&m, 0, sizeof(m));
	m.gpu_devices = 0;
	d.master = &m;
	T_DBL_EQ(rai_submit_gpus(&s, &d), 6);
	d.master = NULL;
	d.kind = RAI_DIST_MPI;				/* the launcher has none */
	T_DBL_EQ(rai_submit_gpus(&s, &d), 6);
	s.gpu = 0.5;
	T_DBL_EQ(rai_submit_gpus(&s, NULL), 0.5);
	s.mig_profile = "1g.5gb";			/* not whole GPUs */
	T_DBL_EQ(rai_submit_gpus(&s, NULL), 0);
}

TEST(over_the_deserved_gpus_it_never_runs)
{
	struct rai_submit_spec s;
	struct rai_project p = project(team_a, 4), none;
	char *why;

	rai_submit_spec_init(&s);
	s.interactive = 1;
	s.gpu = 4;
	T_INT_EQ(rai_submit_over_quota(&s, NULL, &p, &why), 0);
	T_NULL(why);
	s.gpu = 16;
	T_INT_EQ(rai_submit_over_quota(&s, NULL, &p, &why), 1);
	T_STR_EQ(why, "project team-a deserves 4 GPUs and this non-preemptible "
	    "job requests 16: it can never be scheduled");
	free(why);
	p.deserved_gpus = 1;
	s.gpu = 1.5;
	T_INT_EQ(rai_submit_over_quota(&s, NULL, &p, &why), 1);
	T_STR_EQ(why, "project team-a deserves 1 GPU and this non-preemptible "
	    "job requests 1.5: it can never be scheduled");
	free(why);
	/* preemptible work borrows; a project without a quota says nothing */
	s.preemptible = 1;
	T_INT_EQ(rai_submit_over_quota(&s, NULL, &p, &why), 0);
	s.preemptible = 0;
	none = project(plain, 0);
	none.has_quota = 0;
	T_INT_EQ(rai_submit_over_quota(&s, NULL, &none, &why), 0);
	T_INT_EQ(rai_submit_over_quota(&s, NULL, NULL, &why), 0);
}

int
main(void)
{
	RUN(which_jobs_stay_within_quota);
	RUN(the_gpus_of_all_its_pods);
	RUN(over_the_deserved_gpus_it_never_runs);
	return t_done();
}
