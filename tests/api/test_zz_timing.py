from tests.builders import create, line, body, PORT_FIELDS, HANDOVER_FIELDS

CASES = [
    ("/customer", lambda p: create(p, line(p, notify_bill_via_text="X"))),
    ("/customer", lambda p: create(p, line(p, handover_type="xyz"))),
    ("/customer", lambda p: create(p, line(p, password="abc"))),
    ("/customer", lambda p: create(p, line(p, plan_id="²"))),
    ("/customer", lambda p: create(p, line(p, plan_id=10**30))),
    ("/customer", lambda p: create(p, line(p, plan_id="99999999999999999999999"))),
    ("/customer", lambda p: create(p)),
    ("/customer", lambda p: create(p, "x")),
    ("/customer", lambda p: create(p, line(p, phone_type="4G", email="bad"))),
    ("/customer", lambda p: create(p, line(p, activation_type="PORTIN"))),
    ("/customer", lambda p: create(p, line(p, enrollment_type="HANDOVER"))),
    ("/customer", lambda p: create(p, line(p, sku_type="X", brand_code="Y", device_type="Z"))),
    ("/customer", lambda p: create(p, line(p, first_name="A"*51, middle_initial="-", last_name="A-"))),
    ("/customer", lambda p: create(p, line(p, first_name="Pat1"))),
    ("/customer", lambda p: create(p, line(p, first_name="Zoë"))),
    ("/payment", lambda p: body("make_payment", enrollment_id=p, exp_month="01", exp_year="2020")),
    ("/payment", lambda p: body("make_payment", enrollment_id=p, plan_id="999")),
    ("/payment", lambda p: body("make_payment", enrollment_id=p, save_card="X")),
    ("/enrollment", lambda p: body("check_service_availability", enrollment_type="LIFELINE", is_enrollment="N")),
    ("/enrollment", lambda p: body("check_service_availability", zip_code="00001")),
    ("/plan", lambda p: body("plan_list", plan_id="x")),
    ("/plan", lambda p: body("plan_list", plan_id="999")),
    ("/plan", lambda p: body("plan_list", zip_code="00001")),
    ("/ops", lambda p: {"action": "list_stuck_enrollments", "source": "API", "agent_id": "demo.support", "limit": 0}),
    ("/ops", lambda p: {"action": "list_stuck_enrollments", "source": "API", "agent_id": "demo.support", "limit": "x"}),
    ("/ops", lambda p: {"action": "list_stuck_enrollments", "source": "API", "agent_id": "demo.support", "limit": True}),
    ("/ops", lambda p: {"action": "list_stuck_enrollments", "source": "API", "agent_id": "demo.support", "limit": 2.5}),
    ("/ops", lambda p: {"action": "list_stuck_enrollments", "source": "API", "agent_id": "demo.agent"}),
]

async def test_probe(stack):
    p = await stack.new_enrollment_id()
    for path, make in CASES:
        r = await stack.call(path, make(p))
        r.pop("token", None)
        print(path, str(r)[:400])
