// Box2D v3 on the reference scenes (chain, chain_hang, joint_grid) with the same
// protocol as benches/peers (shared/reference/scenes.md): bodies without shapes, revolute
// joints, dt = 1/60, error = anchor separation from the poses, medians over rounds.
// Prints rows in benches/peers' --external CSV format without the last (note) field;
// run.sh builds it against Box2D v3.1.1 and appends the note.
// `harness trajectory LINKS STEPS SUBSTEPS` instead steps scene `chain`'s first LINKS
// links released horizontal and prints every body's state before the first step and
// after each (`step,body,x,y,cos,sin,vx,vy,w`), which `nape-peers --curve` measures
// against its exact motion.
// `harness scene STEPS SUBSTEPS` instead builds the scene description it reads from stdin
// (lines `gravity gx gy`; `body dynamic mass inertia x y angle vx vy w`;
// `revolute a b ax ay bx by motor speed max_torque`; `weld a b ax ay bx by reference`;
// `distance a b ax ay bx by length`; `line a b ax ay bx by axis_x axis_y`), as
// `nape-peers --loops` writes it, steps it STEPS times and prints `time,MS_PER_STEP,
// FIRST_STEP_MS` (steps 2..N, the step call only) then every body's state before the
// first step and after each, as `trajectory` does: the loop scenes' errors and figures
// are computed on the Rust side.
#include "box2d/box2d.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { int dynamic; float mass, inertia, x, y, angle; } BodySpec;
typedef struct { int a, b; float ax, ay, bx, by; } JointSpec;
typedef struct { BodySpec* bodies; int nb; JointSpec* joints; int nj; int steps; const char* name; } Scene;

static Scene make_chain(int links, int hanging) {
	Scene s = {0};
	s.name = hanging ? "chain_hang" : "chain";
	s.steps = 600;
	s.nb = links + 1; s.nj = links;
	s.bodies = calloc(s.nb, sizeof(BodySpec));
	s.joints = calloc(s.nj, sizeof(JointSpec));
	float m = 4.0f * 0.5f * 0.125f, I = m * (1.0f + 0.0625f) / 12.0f;
	s.bodies[0] = (BodySpec){0, 0, 0, 0, 0, 0};
	for (int i = 0; i < links; ++i) {
		float along = 0.5f + (float)i;
		if (hanging) s.bodies[i + 1] = (BodySpec){1, m, I, 0.0f, -along, -1.57079632679f};
		else s.bodies[i + 1] = (BodySpec){1, m, I, along, 0.0f, 0.0f};
		s.joints[i] = (JointSpec){i, i + 1, i == 0 ? 0.0f : 0.5f, 0.0f, -0.5f, 0.0f};
	}
	return s;
}

static Scene make_grid(void) {
	Scene s = {0};
	s.name = "joint_grid";
	s.steps = 300;
	int N = 100;
	s.bodies = calloc(N * N, sizeof(BodySpec));
	s.joints = calloc(2 * N * N, sizeof(JointSpec));
	float r = 0.4f, m = 3.14159265358979f * r * r, I = 0.5f * m * r * r;
	for (int k = 0; k < N; ++k)
		for (int i = 0; i < N; ++i) {
			int pinned = i == 0 && k >= 47 && k <= 53;
			int index = s.nb++;
			s.bodies[index] = (BodySpec){!pinned, m, I, (float)k, -(float)i, 0.0f};
			if (i > 0 && !(pinned && !s.bodies[index - 1].dynamic))
				s.joints[s.nj++] = (JointSpec){index - 1, index, 0.0f, -0.5f, 0.0f, 0.5f};
			if (k > 0 && !(pinned && !s.bodies[index - N].dynamic))
				s.joints[s.nj++] = (JointSpec){index - N, index, 0.5f, 0.0f, -0.5f, 0.0f};
		}
	return s;
}

typedef struct { double first, per_step, final_max, final_mean, run_max; int run_max_step; } Record;

static double now_ms(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

// A world holding `s`, its body ids in `ids` (indexed like `s->bodies`).
static b2WorldId build_world(const Scene* s, b2BodyId* ids) {
	b2WorldDef wd = b2DefaultWorldDef();
	wd.gravity = (b2Vec2){0.0f, -10.0f};
	wd.enableSleep = false;
	wd.enableContinuous = false;
	wd.workerCount = 1;
	b2WorldId world = b2CreateWorld(&wd);
	for (int i = 0; i < s->nb; ++i) {
		b2BodyDef bd = b2DefaultBodyDef();
		bd.type = s->bodies[i].dynamic ? b2_dynamicBody : b2_staticBody;
		bd.position = (b2Vec2){s->bodies[i].x, s->bodies[i].y};
		bd.rotation = b2MakeRot(s->bodies[i].angle);
		bd.enableSleep = false;
		ids[i] = b2CreateBody(world, &bd);
		if (s->bodies[i].dynamic)
			b2Body_SetMassData(ids[i], (b2MassData){s->bodies[i].mass, {0.0f, 0.0f}, s->bodies[i].inertia});
	}
	for (int j = 0; j < s->nj; ++j) {
		b2RevoluteJointDef jd = b2DefaultRevoluteJointDef();
		jd.bodyIdA = ids[s->joints[j].a];
		jd.bodyIdB = ids[s->joints[j].b];
		jd.localAnchorA = (b2Vec2){s->joints[j].ax, s->joints[j].ay};
		jd.localAnchorB = (b2Vec2){s->joints[j].bx, s->joints[j].by};
		jd.collideConnected = false;
		jd.referenceAngle = 0.0f;
		b2CreateRevoluteJoint(world, &jd);
	}
	return world;
}

static Record run_once(const Scene* s, int substeps) {
	b2BodyId* ids = malloc(sizeof(b2BodyId) * s->nb);
	b2WorldId world = build_world(s, ids);
	double *px = malloc(sizeof(double) * s->nb), *py = malloc(sizeof(double) * s->nb),
	       *pc = malloc(sizeof(double) * s->nb), *ps = malloc(sizeof(double) * s->nb);
	Record rec = {0};
	double later = 0.0;
	for (int step = 1; step <= s->steps; ++step) {
		double t0 = now_ms();
		b2World_Step(world, 1.0f / 60.0f, substeps);
		double dt = now_ms() - t0;
		if (step == 1) rec.first = dt; else later += dt;
		for (int i = 0; i < s->nb; ++i) {
			b2Vec2 p = b2Body_GetPosition(ids[i]);
			b2Rot q = b2Body_GetRotation(ids[i]);
			px[i] = p.x; py[i] = p.y; pc[i] = q.c; ps[i] = q.s;
		}
		double max = 0.0, sum = 0.0;
		for (int j = 0; j < s->nj; ++j) {
			const JointSpec* js = &s->joints[j];
			int a = js->a, b = js->b;
			double ax = px[a] + pc[a] * js->ax - ps[a] * js->ay, ay = py[a] + ps[a] * js->ax + pc[a] * js->ay;
			double bx = px[b] + pc[b] * js->bx - ps[b] * js->by, by = py[b] + ps[b] * js->bx + pc[b] * js->by;
			double e = hypot(ax - bx, ay - by);
			if (isnan(e)) e = INFINITY;
			if (e > max) max = e;
			sum += e;
		}
		if (max > rec.run_max || rec.run_max_step == 0) { rec.run_max = max; rec.run_max_step = step; }
		rec.final_max = max;
		rec.final_mean = sum / s->nj;
	}
	rec.per_step = later / (s->steps - 1);
	b2DestroyWorld(world);
	free(ids); free(px); free(py); free(pc); free(ps);
	return rec;
}

static int cmp(const void* a, const void* b) {
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

static double median(double* v, int n) {
	qsort(v, n, sizeof(double), cmp);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void print_states(const Scene* s, const b2BodyId* ids, int step) {
	for (int i = 0; i < s->nb; ++i) {
		b2Vec2 p = b2Body_GetPosition(ids[i]);
		b2Rot q = b2Body_GetRotation(ids[i]);
		b2Vec2 v = b2Body_GetLinearVelocity(ids[i]);
		printf("%d,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", step, i, p.x, p.y, q.c, q.s, v.x, v.y,
		       b2Body_GetAngularVelocity(ids[i]));
	}
}

static int trajectory(int links, int steps, int substeps) {
	if (links < 1 || steps < 1 || substeps < 1) {
		fprintf(stderr, "usage: harness trajectory LINKS STEPS SUBSTEPS\n");
		return 1;
	}
	Scene s = make_chain(links, 0);
	b2BodyId* ids = malloc(sizeof(b2BodyId) * s.nb);
	b2WorldId world = build_world(&s, ids);
	print_states(&s, ids, 0);
	for (int step = 1; step <= steps; ++step) {
		b2World_Step(world, 1.0f / 60.0f, substeps);
		print_states(&s, ids, step);
	}
	b2DestroyWorld(world);
	free(ids);
	return 0;
}

// A scene description as `nape-peers` writes it (see the header), built into a world.
typedef struct { b2WorldId world; b2BodyId* ids; int nb; } Built;

static int read_scene(Built* built) {
	char kind[16];
	b2WorldDef wd = b2DefaultWorldDef();
	wd.gravity = (b2Vec2){0.0f, -10.0f};
	wd.enableSleep = false;
	wd.enableContinuous = false;
	wd.workerCount = 1;
	int capacity = 16, created = 0;
	built->ids = malloc(sizeof(b2BodyId) * capacity);
	built->nb = 0;
	while (scanf("%15s", kind) == 1) {
		if (!strcmp(kind, "gravity")) {
			if (created || scanf("%f %f", &wd.gravity.x, &wd.gravity.y) != 2) return 0;
			continue;
		}
		if (!created) {
			built->world = b2CreateWorld(&wd);
			created = 1;
		}
		if (!strcmp(kind, "body")) {
			int dynamic;
			float m, I, x, y, angle, vx, vy, w;
			if (scanf("%d %f %f %f %f %f %f %f %f", &dynamic, &m, &I, &x, &y, &angle, &vx, &vy, &w) != 9) return 0;
			b2BodyDef bd = b2DefaultBodyDef();
			bd.type = dynamic ? b2_dynamicBody : b2_staticBody;
			bd.position = (b2Vec2){x, y};
			bd.rotation = b2MakeRot(angle);
			bd.linearVelocity = (b2Vec2){vx, vy};
			bd.angularVelocity = w;
			bd.enableSleep = false;
			if (built->nb == capacity) built->ids = realloc(built->ids, sizeof(b2BodyId) * (capacity *= 2));
			b2BodyId id = b2CreateBody(built->world, &bd);
			if (dynamic) b2Body_SetMassData(id, (b2MassData){m, {0.0f, 0.0f}, I});
			built->ids[built->nb++] = id;
			continue;
		}
		int a, b;
		b2Vec2 la, lb;
		if (scanf("%d %d %f %f %f %f", &a, &b, &la.x, &la.y, &lb.x, &lb.y) != 6 || a < 0 || b < 0 ||
		    a >= built->nb || b >= built->nb)
			return 0;
		if (!strcmp(kind, "revolute")) {
			int motor;
			float speed, torque;
			if (scanf("%d %f %f", &motor, &speed, &torque) != 3) return 0;
			b2RevoluteJointDef jd = b2DefaultRevoluteJointDef();
			jd.bodyIdA = built->ids[a], jd.bodyIdB = built->ids[b];
			jd.localAnchorA = la, jd.localAnchorB = lb;
			jd.enableMotor = motor != 0;
			jd.motorSpeed = speed;
			jd.maxMotorTorque = torque;
			b2CreateRevoluteJoint(built->world, &jd);
		} else if (!strcmp(kind, "weld")) {
			b2WeldJointDef jd = b2DefaultWeldJointDef();
			jd.bodyIdA = built->ids[a], jd.bodyIdB = built->ids[b];
			jd.localAnchorA = la, jd.localAnchorB = lb;
			if (scanf("%f", &jd.referenceAngle) != 1) return 0;
			// Zero hertz: rigid (the world's joint softness only).
			jd.linearHertz = 0.0f, jd.angularHertz = 0.0f;
			b2CreateWeldJoint(built->world, &jd);
		} else if (!strcmp(kind, "distance")) {
			b2DistanceJointDef jd = b2DefaultDistanceJointDef();
			jd.bodyIdA = built->ids[a], jd.bodyIdB = built->ids[b];
			jd.localAnchorA = la, jd.localAnchorB = lb;
			if (scanf("%f", &jd.length) != 1) return 0;
			jd.enableSpring = false, jd.enableLimit = false, jd.enableMotor = false;
			b2CreateDistanceJoint(built->world, &jd);
		} else if (!strcmp(kind, "line")) {
			b2WheelJointDef jd = b2DefaultWheelJointDef();
			jd.bodyIdA = built->ids[a], jd.bodyIdB = built->ids[b];
			jd.localAnchorA = la, jd.localAnchorB = lb;
			if (scanf("%f %f", &jd.localAxisA.x, &jd.localAxisA.y) != 2) return 0;
			jd.enableSpring = false, jd.enableLimit = false, jd.enableMotor = false;
			b2CreateWheelJoint(built->world, &jd);
		} else {
			return 0;
		}
	}
	return created && built->nb > 0;
}

static int scene(int steps, int substeps) {
	Built built;
	if (steps < 2 || substeps < 1 || !read_scene(&built)) {
		fprintf(stderr, "usage: harness scene STEPS SUBSTEPS < description (see harness.c)\n");
		return 1;
	}
	int nb = built.nb;
	float* states = malloc(sizeof(float) * 9 * nb * (steps + 1));
	double first = 0.0, later = 0.0;
	for (int step = 0; step <= steps; ++step) {
		if (step > 0) {
			double t0 = now_ms();
			b2World_Step(built.world, 1.0f / 60.0f, substeps);
			double dt = now_ms() - t0;
			if (step == 1) first = dt; else later += dt;
		}
		for (int i = 0; i < nb; ++i) {
			float* x = states + 9 * (step * nb + i);
			b2Vec2 p = b2Body_GetPosition(built.ids[i]);
			b2Rot q = b2Body_GetRotation(built.ids[i]);
			b2Vec2 v = b2Body_GetLinearVelocity(built.ids[i]);
			x[0] = p.x, x[1] = p.y, x[2] = q.c, x[3] = q.s, x[4] = v.x, x[5] = v.y;
			x[6] = b2Body_GetAngularVelocity(built.ids[i]);
		}
	}
	printf("time,%.9g,%.9g\n", later / (steps - 1), first);
	for (int step = 0; step <= steps; ++step)
		for (int i = 0; i < nb; ++i) {
			const float* x = states + 9 * (step * nb + i);
			printf("%d,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", step, i, x[0], x[1], x[2], x[3], x[4], x[5], x[6]);
		}
	b2DestroyWorld(built.world);
	free(built.ids);
	free(states);
	return 0;
}

int main(int argc, char** argv) {
	if (argc > 1 && !strcmp(argv[1], "scene"))
		return scene(argc > 2 ? atoi(argv[2]) : 0, argc > 3 ? atoi(argv[3]) : 0);
	if (argc > 1 && !strcmp(argv[1], "trajectory"))
		return trajectory(argc > 2 ? atoi(argv[2]) : 0, argc > 3 ? atoi(argv[3]) : 0, argc > 4 ? atoi(argv[4]) : 0);
	int runs = argc > 1 ? atoi(argv[1]) : 5;
	const char* only = argc > 2 ? argv[2] : NULL;
	int substeps[] = {1, 2, 4, 8, 16};
	enum { NC = 5 };
	Scene scenes[3] = {make_chain(200, 0), make_chain(200, 1), make_grid()};
	Record* rec = calloc(3 * NC * runs, sizeof(Record));
	for (int r = 0; r < runs; ++r)
		for (int s = 0; s < 3; ++s) {
			if (only && strcmp(only, scenes[s].name)) continue;
			for (int c = 0; c < NC; ++c) {
				Record x = run_once(&scenes[s], substeps[c]);
				rec[(s * NC + c) * runs + r] = x;
				fprintf(stderr, "round %d %s substeps %d: %.4f ms/step run max %.2e final %.2e\n", r + 1,
				        scenes[s].name, substeps[c], x.per_step, x.run_max, x.final_max);
			}
		}
	double* v = malloc(sizeof(double) * runs);
	for (int s = 0; s < 3; ++s) {
		if (only && strcmp(only, scenes[s].name)) continue;
		for (int c = 0; c < NC; ++c) {
			Record* x = &rec[(s * NC + c) * runs];
			double med[6], lo = 1e300, hi = 0;
			for (int f = 0; f < 5; ++f) {
				for (int r = 0; r < runs; ++r) {
					double val = f == 0 ? x[r].per_step : f == 1 ? x[r].first : f == 2 ? x[r].final_max : f == 3 ? x[r].final_mean : x[r].run_max;
					v[r] = val;
					if (f == 0) { if (val < lo) lo = val; if (val > hi) hi = val; }
				}
				med[f] = median(v, runs);
			}
			int step = x[0].run_max_step;
			for (int r = 0; r < runs; ++r) if (x[r].run_max == med[4]) step = x[r].run_max_step;
			printf("box2d v3.1.1,sub %d%s,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d,%d\n", substeps[c],
			       substeps[c] == 4 ? " (default)" : "", scenes[s].name, med[0], lo, hi, med[1], med[2], med[3], med[4],
			       step, runs);
		}
	}
	return 0;
}
