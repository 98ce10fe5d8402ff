# The LWP hardware model (plain C, model/model_env.h only). Not a library of
# its own: liblwp and lwpt_sim.ko compile these sources in; the unit tests
# link them directly. LWP_MODEL_SRCS is the list to use.
LWP_MODEL_SRCS := model/lwp/lwp_model.c model/lwp/lwp_profile.c model/lwp/lwp_xop.c
